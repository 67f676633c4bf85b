package httpx

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kassapay/kassa"
)

// fakeMetrics records what Core reports.
type fakeMetrics struct {
	mu      sync.Mutex
	asked   []string       // patterns Route was asked for, in order
	served  []string       // "pattern status" per request
	streams map[string]int // open streams by scope
}

func (m *fakeMetrics) Route(pattern string) func(int, time.Duration) {
	m.asked = append(m.asked, pattern)
	return func(status int, took time.Duration) {
		m.mu.Lock()
		defer m.mu.Unlock()
		if took <= 0 {
			status = -status // a request takes some time: make a wrong duration fail the test
		}
		m.served = append(m.served, fmt.Sprintf("%s %d", pattern, status))
	}
}

func (m *fakeMetrics) WebSocketOpened(scope kassa.Scope) func() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.streams[string(scope)]++
	return func() {
		m.mu.Lock()
		defer m.mu.Unlock()
		m.streams[string(scope)]--
	}
}

// TestCoreCountsRequestsByRouteTemplate: each request is counted once under the
// pattern that served it, with the status it got; requests no route matched
// (404, 405) share UnmatchedRoute, so no URL becomes a label.
func TestCoreCountsRequestsByRouteTemplate(t *testing.T) {
	m := &fakeMetrics{streams: map[string]int{}}
	core := NewCore(CoreConfig{Metrics: m, AccessLog: AccessLog{Off: true}})
	core.Handle("GET /api/v1/invoices/{invoiceId}", func(w http.ResponseWriter, r *http.Request) error {
		if r.PathValue("invoiceId") == "missing" {
			return kassa.NotFound("invoice")
		}
		WriteJSON(w, http.StatusOK, map[string]string{"id": r.PathValue("invoiceId")})
		return nil
	})
	core.Handle("POST /api/v1/invoices", func(w http.ResponseWriter, _ *http.Request) error {
		WriteJSON(w, http.StatusCreated, map[string]string{})
		return nil
	})
	core.HandleHTTP("GET /boom", func(http.ResponseWriter, *http.Request) { panic("boom") })
	core.HandleHTTP("GET /files/", func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) })
	if want := []string{UnmatchedRoute, "GET /api/v1/invoices/{invoiceId}", "POST /api/v1/invoices", "GET /boom", "GET /files/"}; !slices.Equal(m.asked, want) {
		t.Fatalf("Route asked for %q, want %q (once each, at registration)", m.asked, want)
	}

	tests := []struct {
		method, path, contentType string
		want                      string
	}{
		{"GET", "/api/v1/invoices/0190aaaa-0000-7000-8000-000000000001", "", "GET /api/v1/invoices/{invoiceId} 200"},
		{"GET", "/api/v1/invoices/missing", "", "GET /api/v1/invoices/{invoiceId} 404"},
		{"POST", "/api/v1/invoices", "application/json", "POST /api/v1/invoices 201"},
		// Refused before routing (not JSON): still its route's.
		{"POST", "/api/v1/invoices", "text/plain", "POST /api/v1/invoices 400"},
		{"GET", "/boom", "", "GET /boom 500"},
		{"GET", "/files/a/b", "", "GET /files/ 204"},
		{"GET", "/no/such/route/inv_123", "", "unmatched 404"},
		{"DELETE", "/api/v1/invoices", "", "unmatched 405"},
		{"GET", "/files", "", "GET /files/ 307"}, // the mux's redirect to the pattern's /files/
		// The mux's redirect to a cleaned path: under the template it leads to.
		{"GET", "/api/v1/invoices/0190aaaa-0000-7000-8000-000000000001/../x", "", "GET /api/v1/invoices/{invoiceId} 307"},
	}
	for _, tt := range tests {
		body := ""
		if tt.method == "POST" {
			body = "{}"
		}
		r := httptest.NewRequest(tt.method, tt.path, strings.NewReader(body))
		if tt.contentType != "" {
			r.Header.Set("Content-Type", tt.contentType)
		}
		core.ServeHTTP(httptest.NewRecorder(), r)
		m.mu.Lock()
		got := m.served
		m.served = nil
		m.mu.Unlock()
		if len(got) != 1 || got[0] != tt.want {
			t.Errorf("%s %s: counted %q, want %q", tt.method, tt.path, got, tt.want)
		}
	}

	if closed := core.WebSocketOpened(kassa.ScopeCommerce); m.streams["commerce"] != 1 {
		t.Fatalf("streams %v after opening one", m.streams)
	} else if closed(); m.streams["commerce"] != 0 {
		t.Fatalf("streams %v after closing it", m.streams)
	}
	NewCore(CoreConfig{}).WebSocketOpened(kassa.ScopeMerchant)() // without metrics: nothing to count, no panic
}
