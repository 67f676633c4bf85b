package metrics

import (
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kassapay/kassa"
)

// route records the requests of one route template. The series of each status it
// has seen are kept in a copy-on-write slice, so recording a request is a short
// scan and two atomic adds: no label lookup, no allocation, no lock. A status not
// seen before takes the lock once to create its series.
type route struct {
	m       *Metrics
	pattern string
	mu      sync.Mutex
	seen    atomic.Pointer[[]statusSeries]
}

// statusSeries are a route's series for one status.
type statusSeries struct {
	status int
	count  interface{ Inc() }
	took   interface{ Observe(float64) }
}

// Route returns the recorder of one route template (httpx.Metrics): the pattern
// as registered, or httpx.UnmatchedRoute.
func (m *Metrics) Route(pattern string) func(status int, took time.Duration) {
	r := &route{m: m, pattern: pattern}
	return r.record
}

func (r *route) record(status int, took time.Duration) {
	if seen := r.seen.Load(); seen != nil {
		for i := range *seen {
			if s := &(*seen)[i]; s.status == status {
				s.count.Inc()
				s.took.Observe(took.Seconds())
				return
			}
		}
	}
	s := r.add(status)
	s.count.Inc()
	s.took.Observe(took.Seconds())
}

// add creates the series of a status the route had not seen.
func (r *route) add(status int) statusSeries {
	r.mu.Lock()
	defer r.mu.Unlock()
	var old []statusSeries
	if p := r.seen.Load(); p != nil {
		old = *p
		for _, s := range old {
			if s.status == status {
				return s
			}
		}
	}
	code := strconv.Itoa(status)
	s := statusSeries{status: status, count: r.m.requests.WithLabelValues(r.pattern, code),
		took: r.m.durations.WithLabelValues(r.pattern, code)}
	seen := append(slices.Clip(old), s)
	r.seen.Store(&seen)
	return s
}

// WebSocketOpened counts an open WebSocket stream of scope (httpx.Metrics); the
// returned function, called once when it closes, takes it off again.
func (m *Metrics) WebSocketOpened(scope kassa.Scope) (closed func()) {
	g := m.websockets.WithLabelValues(string(scope))
	g.Inc()
	return g.Dec
}
