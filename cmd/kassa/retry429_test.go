package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestPatientTransport: a 429 is waited out and asked again, body and all; a
// server that keeps refusing gets its 429 back after the tries.
func TestPatientTransport(t *testing.T) {
	var asked, refuse atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked.Add(1)
		if refuse.Add(-1) >= 0 {
			w.Header().Set("Retry-After", "0")
			w.WriteHeader(http.StatusTooManyRequests)
			return
		}
		body, _ := io.ReadAll(r.Body)
		_, _ = w.Write(body)
	}))
	defer srv.Close()
	c := &http.Client{Timeout: 10 * time.Second, Transport: &patientTransport{tries: 3, maxWait: time.Second}}
	for _, tt := range []struct {
		name    string
		refuse  int32
		status  int
		askedN  int32
		wantOut string
	}{
		{"two refusals, then the answer", 2, 200, 3, "hello"},
		{"refused past the tries", 5, 429, 3, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			asked.Store(0)
			refuse.Store(tt.refuse)
			resp, err := c.Post(srv.URL, "text/plain", strings.NewReader("hello"))
			if err != nil {
				t.Fatal(err)
			}
			out, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != tt.status || asked.Load() != tt.askedN || (tt.wantOut != "" && string(out) != tt.wantOut) {
				t.Fatalf("status %d after %d requests, body %q; want %d after %d, %q", resp.StatusCode, asked.Load(), out,
					tt.status, tt.askedN, tt.wantOut)
			}
		})
	}
}
