package api_test

import (
	"strings"
	"testing"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/api"
	"github.com/kassapay/kassa/api/httpx"
	"github.com/kassapay/kassa/metrics"
	"github.com/kassapay/kassa/metrics/metricstest"
	"github.com/kassapay/kassa/registry"
	"github.com/kassapay/kassa/store"
	"github.com/kassapay/kassa/store/storetest"
)

// withMetrics serves /metrics from m to nets (nil: loopback) and counts requests in m.
func withMetrics(m *metrics.Metrics, nets httpx.Networks) envOption {
	return func(c *api.Config) { c.Metrics, c.MetricsHandler, c.MetricsNetworks = m, m.Handler(), nets }
}

// TestMetricsAfterTraffic: after real requests the scraped series moved by what
// was done: invoices created, requests by route template and status, a status
// change and a payment counted at commit; and no label holds an id.
func TestMetricsAfterTraffic(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		meters := metrics.New(metrics.Config{Registry: registry.Default()})
		cfg.Observer = meters
		e := newEnv(t, cfg, withMetrics(meters, nil))
		url := e.srv.URL + "/metrics"
		before := metricstest.Scrape(t, url)
		m := e.newMerchant(false)
		var ids []string
		for range 3 {
			ids = append(ids, m.createInvoice(`{"amount_usd": 10}`)["invoice_id"].(string))
		}
		expectStatus(t, m.get("/api/v1/invoices/"+ids[0]), 200)
		expectStatus(t, m.get("/api/v1/invoices/"+kassa.NewUUID()), 404)
		expectStatus(t, e.do(request{method: "GET", path: "/no/such/route/inv_123"}), 404)
		r := e.do(request{method: "POST", path: "/api/v1/devnet/invoices/" + ids[1] + "/payments", headers: withKey(m.key)})
		expectStatus(t, r, 201)
		if r.obj(t)["invoice"].(map[string]any)["status"] != "paid" {
			t.Fatalf("devnet payment did not pay: %s", r.body)
		}
		after := metricstest.Scrape(t, url)

		delta := func(name string, labels ...string) float64 {
			t.Helper()
			was, _ := before.Lookup(name, labels...)
			return after.Value(t, name, labels...) - was
		}
		checks := []struct {
			name   string
			labels []string
			want   float64
		}{
			{"kassa_invoices_created_total", nil, 3},
			{"kassa_http_requests_total", []string{"route", "POST /api/v1/invoices", "status", "201"}, 3},
			{"kassa_http_request_duration_seconds", []string{"route", "POST /api/v1/invoices", "status", "201"}, 3},
			{"kassa_http_requests_total", []string{"route", "GET /api/v1/invoices/{invoiceId}", "status", "200"}, 1},
			{"kassa_http_requests_total", []string{"route", "GET /api/v1/invoices/{invoiceId}", "status", "404"}, 1},
			{"kassa_http_requests_total", []string{"route", "unmatched", "status", "404"}, 1},
			{"kassa_http_requests_total", []string{"route", "POST /api/v1/devnet/invoices/{invoiceId}/payments", "status", "201"}, 1},
			{"kassa_http_requests_total", []string{"route", "/metrics", "status", "200"}, 1}, // the first scrape
			{"kassa_invoice_transitions_total", []string{"from", "unpaid", "to", "paid"}, 1},
			{"kassa_invoice_transitions_total", []string{"from", "unpaid", "to", "underpaid"}, 0},
			{"kassa_payments_detected_total", []string{"network", "bsc-testnet", "token", "USDT"}, 1},
		}
		for _, c := range checks {
			if got := delta(c.name, c.labels...); got != c.want {
				t.Errorf("%s%v rose by %v, want %v", c.name, c.labels, got, c.want)
			}
		}
		for _, name := range []string{"kassa_http_requests_total", "kassa_http_request_duration_seconds"} {
			for _, s := range after[name].GetMetric() {
				for _, l := range s.GetLabel() {
					for _, id := range append(ids, "inv_123", m.m.Email) {
						if strings.Contains(l.GetValue(), id) {
							t.Errorf("%s has label %s=%q, which holds an id", name, l.GetName(), l.GetValue())
						}
					}
				}
			}
		}
	})
}

// TestMetricsOnlyForAllowedNetworks: a client outside the allowed networks, or
// one whose request came through a proxy, gets the 404 of an unknown URL, as does
// everyone when metrics are off.
func TestMetricsOnlyForAllowedNetworks(t *testing.T) {
	cfg := storetest.SQLiteConfig(t)
	db := storetest.Open(t, cfg)
	meters := metrics.New(metrics.Config{})
	elsewhere, err := httpx.ParseNetworks("10.0.0.0/8,2001:db8::/32")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		opts    []envOption
		method  string
		headers map[string]string
		want    int
	}{
		{"loopback by default", []envOption{withMetrics(meters, nil)}, "GET", nil, 200},
		{"loopback not allowed", []envOption{withMetrics(meters, elsewhere)}, "GET", nil, 404},
		{"through a proxy", []envOption{withMetrics(meters, nil)}, "GET", map[string]string{"X-Forwarded-For": "203.0.113.9"}, 404},
		{"through a proxy that sets only Via", []envOption{withMetrics(meters, nil)}, "GET", map[string]string{"Via": "1.1 edge"}, 404},
		{"another method, not allowed", []envOption{withMetrics(meters, elsewhere)}, "POST", nil, 404},
		{"another method, allowed", []envOption{withMetrics(meters, nil)}, "POST", nil, 405},
		{"metrics off", nil, "GET", nil, 404},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnvOn(t, db, nil, tt.opts...)
			r := e.do(request{method: tt.method, path: "/metrics", headers: tt.headers})
			switch tt.want {
			case 200:
				expectStatus(t, r, 200)
				metricstest.Parse(t, string(r.body))
				return
			case 405:
				expectError(t, r, 405, "invalid_request_error", "method_not_allowed", "")
				return
			}
			expectError(t, r, 404, "not_found_error", "route_not_found", "")
			unknown := e.do(request{method: tt.method, path: "/metricz"})
			if strings.ReplaceAll(string(r.body), r.header.Get("Request-Id"), "") !=
				strings.ReplaceAll(strings.ReplaceAll(string(unknown.body), unknown.header.Get("Request-Id"), ""), "/metricz", "/metrics") {
				t.Fatalf("refused scrape %s differs from an unknown URL's 404 %s", r.body, unknown.body)
			}
		})
	}
}
