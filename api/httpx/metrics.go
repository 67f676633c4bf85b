package httpx

import (
	"net/http"
	"time"

	"github.com/kassapay/kassa"
)

// Metrics is where the HTTP layer reports what package metrics counts. A Core
// without it (CoreConfig.Metrics nil) counts nothing and pays nothing.
type Metrics interface {
	// Route returns the recorder of one route template: a pattern as registered
	// ("GET /api/v1/invoices/{invoiceId}"), or UnmatchedRoute. Core asks once per
	// template, when it is registered, so a request's labels are never built or
	// looked up by value while it is served.
	Route(pattern string) func(status int, took time.Duration)
	// WebSocketOpened counts one more open WebSocket stream of scope; the function
	// it returns is called once, when the stream closes.
	WebSocketOpened(scope kassa.Scope) (closed func())
}

// UnmatchedRoute is the route of every request no registered pattern matched (404,
// 405): one value for them all, so a URL never becomes a label.
const UnmatchedRoute = "unmatched"

// track prepares the recorder of a pattern being registered.
func (s *Core) track(pattern string) {
	if s.metrics != nil {
		s.recorders[pattern] = s.metrics.Route(pattern)
	}
}

// record counts a served request under its route template: r.Pattern, the pattern
// ServeMux matched (also for its redirects to a cleaned path or a trailing slash).
// Only registered patterns are labels: anything else, were ServeMux ever to put a
// path there, counts as unmatched.
func (s *Core) record(r *http.Request, status int, took time.Duration) {
	rec, ok := s.recorders[r.Pattern]
	if !ok {
		rec = s.unmatched
	}
	rec(status, took)
}

// WebSocketOpened counts an open WebSocket stream of scope in the metrics;
// call the returned function when it closes.
func (s *Core) WebSocketOpened(scope kassa.Scope) (closed func()) {
	if s.metrics == nil {
		return func() {}
	}
	return s.metrics.WebSocketOpened(scope)
}
