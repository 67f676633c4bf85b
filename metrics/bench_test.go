package metrics_test

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/kassapay/kassa/api/httpx"
	"github.com/kassapay/kassa/metrics"
	"github.com/kassapay/kassa/registry"
)

// discard is a ResponseWriter that keeps nothing, so the benchmark measures the
// middleware and not a recorder's buffers.
type discard struct{ h http.Header }

func (d *discard) Header() http.Header         { return d.h }
func (d *discard) Write(b []byte) (int, error) { return len(b), nil }
func (d *discard) WriteHeader(int)             {}

// BenchmarkMiddleware serves a small JSON answer through httpx.Core, the outer
// layer every request passes (request id, status capture, routing, access log
// off), without metrics and with them: the difference is what counting a request
// by route template and status costs. Run with
//
//	go test ./metrics -run '^$' -bench Middleware -benchmem
func BenchmarkMiddleware(b *testing.B) {
	for _, on := range []bool{false, true} {
		name := "metrics=off"
		cfg := httpx.CoreConfig{AccessLog: httpx.AccessLog{Off: true}}
		if on {
			name = "metrics=on"
			cfg.Metrics = metrics.New(metrics.Config{Registry: registry.Default()})
		}
		core := httpx.NewCore(cfg)
		core.Handle("GET /api/v1/invoices/{invoiceId}", func(w http.ResponseWriter, r *http.Request) error {
			httpx.WriteJSON(w, http.StatusOK, map[string]string{"id": r.PathValue("invoiceId")})
			return nil
		})
		core.Handle("GET /api/v1/invoices", func(w http.ResponseWriter, r *http.Request) error {
			httpx.WriteJSON(w, http.StatusOK, map[string]any{"data": []string{}})
			return nil
		})
		req := httptest.NewRequest("GET", "/api/v1/invoices/0190aaaa-0000-7000-8000-000000000001", nil)
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			w := &discard{h: http.Header{}}
			for b.Loop() {
				clear(w.h)
				core.ServeHTTP(w, req)
			}
		})
	}
}

// BenchmarkRecord is the metrics' share of a request alone: the route's recorder
// counting a status it has seen before.
func BenchmarkRecord(b *testing.B) {
	rec := metrics.New(metrics.Config{}).Route("GET /api/v1/invoices/{invoiceId}")
	rec(200, 1000)
	b.ReportAllocs()
	for b.Loop() {
		rec(200, 1000)
	}
}

// BenchmarkChainRecord is the metrics' share of one JSON-RPC call: counting it by
// network, method and outcome and timing its exchange.
func BenchmarkChainRecord(b *testing.B) {
	m := metrics.New(metrics.Config{Registry: registry.Default()})
	m.RPCCalls("devchain", "eth_getLogs", "ok", 1)
	b.ReportAllocs()
	for b.Loop() {
		m.RPCCalls("devchain", "eth_getLogs", "ok", 1)
		m.RPCDuration("devchain", "eth_getLogs", time.Millisecond)
	}
}
