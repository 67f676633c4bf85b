package httpx

import (
	"net/http"
	"time"

	"kassa"
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

// UnmatchedRoute is the route of every request no route matched (404, 405 and
// the mux's redirects): one value for them all, so a URL never becomes a label.
const UnmatchedRoute = "unmatched"

// track prepares the recorder of a pattern being registered.
func (s *Core) track(pattern string) {
	if s.metrics != nil {
		s.recorders[pattern] = s.metrics.Route(pattern)
	}
}

// record counts a served request under its route template. r.Pattern is the
// pattern ServeMux matched; a redirect's "pattern" is a path and is not in
// recorders, so it counts as unmatched.
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
