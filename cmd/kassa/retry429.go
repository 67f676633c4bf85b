package main

import (
	"net/http"
	"strconv"
	"time"
)

// patientTransport waits out a 429 and asks again, as the API asks clients to:
// after Retry-After seconds (1 when it says none, at most maxWait), up to tries
// times, for requests whose body can be sent again. The CLI's commands use it,
// so a busy server's rate limits (per session, per address) slow them down
// instead of ending them.
type patientTransport struct {
	base    http.RoundTripper // nil: http.DefaultTransport
	tries   int
	maxWait time.Duration
}

// newPatientClient is an HTTP client with a patientTransport and timeout.
func newPatientClient(timeout time.Duration) *http.Client {
	return &http.Client{Timeout: timeout, Transport: &patientTransport{tries: 30, maxWait: 30 * time.Second}}
}

func (p *patientTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	base := p.base
	if base == nil {
		base = http.DefaultTransport
	}
	for try := 1; ; try++ {
		resp, err := base.RoundTrip(r)
		if err != nil || resp.StatusCode != http.StatusTooManyRequests || try >= p.tries || (r.Body != nil && r.GetBody == nil) {
			return resp, err
		}
		wait := time.Second
		if s, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil && s >= 0 {
			wait = time.Duration(s) * time.Second
		}
		wait = min(wait, p.maxWait)
		_ = resp.Body.Close()
		select {
		case <-r.Context().Done():
			return nil, r.Context().Err()
		case <-time.After(wait):
		}
		if r.GetBody != nil {
			body, err := r.GetBody()
			if err != nil {
				return nil, err
			}
			r = r.Clone(r.Context())
			r.Body = body
		}
	}
}
