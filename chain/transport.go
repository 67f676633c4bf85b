package chain

import (
	"context"
	"maps"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// callInfo is what the HTTP transport learns about one call's request: the
// Retry-After of a 429 answer (go-ethereum's HTTPError has no headers).
type callInfo struct {
	retry atomic.Int64 // nanoseconds
}

func (ci *callInfo) retryAfter() time.Duration {
	if ci == nil {
		return 0
	}
	return time.Duration(ci.retry.Load())
}

type callInfoKey struct{}

// countingTransport counts HTTP requests and records Retry-After into the
// request context's callInfo.
type countingTransport struct {
	next  http.RoundTripper
	stats *counters
}

func (t *countingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	t.stats.http.Add(1)
	resp, err := t.next.RoundTrip(req)
	if err == nil && resp.StatusCode == http.StatusTooManyRequests {
		if ci, ok := req.Context().Value(callInfoKey{}).(*callInfo); ok {
			ci.retry.Store(int64(parseRetryAfter(resp.Header.Get("Retry-After"), time.Now())))
		}
	}
	return resp, err
}

// parseRetryAfter reads a Retry-After header: seconds or an HTTP date; 0 when
// absent or unreadable.
func parseRetryAfter(v string, now time.Time) time.Duration {
	if v == "" {
		return 0
	}
	if s, err := strconv.Atoi(v); err == nil {
		if s <= 0 {
			return 0
		}
		return time.Duration(min(s, 86400)) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}

// withCall bounds ctx by timeout and attaches a callInfo for the transport.
func withCall(ctx context.Context, timeout time.Duration) (context.Context, *callInfo, context.CancelFunc) {
	ci := new(callInfo)
	ctx, cancel := context.WithTimeout(context.WithValue(ctx, callInfoKey{}, ci), timeout)
	return ctx, ci, cancel
}

// counters are one endpoint's traffic: JSON-RPC calls per method (a batch of 100
// counts 100), HTTP requests, and faults.
type counters struct {
	mu     sync.RWMutex
	calls  map[string]*atomic.Int64
	http   atomic.Int64
	faults atomic.Int64
}

func (c *counters) add(method string, n int64) {
	c.mu.RLock()
	v := c.calls[method]
	c.mu.RUnlock()
	if v == nil {
		c.mu.Lock()
		if v = c.calls[method]; v == nil {
			if c.calls == nil {
				c.calls = map[string]*atomic.Int64{}
			}
			v = new(atomic.Int64)
			c.calls[method] = v
		}
		c.mu.Unlock()
	}
	v.Add(n)
}

func (c *counters) snapshot() map[string]int64 {
	c.mu.RLock()
	defer c.mu.RUnlock()
	m := make(map[string]int64, len(c.calls))
	for k, v := range c.calls {
		m[k] = v.Load()
	}
	return m
}

// EndpointStats is one endpoint's traffic since it was created.
type EndpointStats struct {
	Endpoint     string           // the URL without credentials
	Calls        map[string]int64 // JSON-RPC calls per method (a batch of n counts n)
	HTTPRequests int64
	Faults       int64 // endpoint faults (EndpointError) answered
}

// Stats is a Pool's traffic: the sum over its endpoints, and each endpoint's.
type Stats struct {
	Calls        map[string]int64 // JSON-RPC calls per method, all endpoints
	HTTPRequests int64
	Failovers    int64 // times a step moved on to another endpoint
	Endpoints    []EndpointStats
}

// Total is the number of JSON-RPC calls of every method.
func (s Stats) Total() int64 {
	var n int64
	for _, v := range s.Calls {
		n += v
	}
	return n
}

func (s *Stats) addEndpoint(e EndpointStats) {
	if s.Calls == nil {
		s.Calls = map[string]int64{}
	}
	for k, v := range e.Calls {
		s.Calls[k] += v
	}
	s.HTTPRequests += e.HTTPRequests
	e.Calls = maps.Clone(e.Calls)
	s.Endpoints = append(s.Endpoints, e)
}
