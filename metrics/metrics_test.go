package metrics

import (
	"context"
	"errors"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/metrics/metricstest"
	"github.com/kassapay/kassa/registry"
	"github.com/kassapay/kassa/webhook"
)

// TestMetricsServed: what the recorders are told and what the sources say at
// scrape time comes out of the handler in the text format, under kassa_ names,
// with labels from fixed sets only.
func TestMetricsServed(t *testing.T) {
	m := New(Config{Registry: registry.Default(), Version: "v1.2.3"})
	show := m.Route("GET /api/v1/invoices/{invoiceId}")
	show(200, 3*time.Millisecond)
	show(200, 40*time.Millisecond)
	show(404, time.Millisecond)
	m.Route("unmatched")(404, time.Millisecond)
	for range 3 {
		m.InvoiceCreated()
	}
	m.InvoiceMoved(kassa.StatusUnpaid, kassa.StatusPaid)
	m.InvoiceMoved("bogus", kassa.StatusPaid) // not a status: not a label
	m.PaymentDetected(kassa.Devnet, "devchain", 7)
	m.PaymentDetected(kassa.Devnet, "devchain", 7)
	m.PaymentDetected(kassa.Devnet, "made-up-net", 999)
	m.SettlementFinished("devchain", kassa.SettlementSettled)
	m.SettlementFinished("devchain", kassa.SettlementProcessing) // not an end
	m.WebhookAttempt(webhook.OutcomeSuccess, 20*time.Millisecond)
	m.WebhookAttempt(webhook.OutcomeTimeout, 15*time.Second)
	closeA := m.WebSocketOpened(kassa.ScopeMerchant)
	m.WebSocketOpened(kassa.ScopeMerchant)
	closeA()

	now := time.Now()
	m.Scrape(Sources{
		Ready:    func(ctx context.Context) error { return errors.New("store down") },
		Warnings: func() []string { return []string{"gas wallet short"} },
		WebhookBacklog: func(ctx context.Context, at time.Time) (WebhookBacklog, error) {
			return WebhookBacklog{Pending: 5, Due: 2, OldestPending: at.Add(-time.Hour), OldestDue: at.Add(-30 * time.Second)}, nil
		},
		Chains: func() []ChainProgress {
			return []ChainProgress{{Network: "devchain", Head: 120, Processed: 100, At: now, Current: true},
				{Network: "bsc-testnet", Head: 9, Processed: 9, At: now.Add(-time.Hour)}}
		},
		Subscribers: func() int { return 4 },
	})
	srv := httptest.NewServer(m.Handler())
	defer srv.Close()
	f := metricstest.Scrape(t, srv.URL)

	for name := range f {
		if !strings.HasPrefix(name, "kassa_") {
			t.Errorf("metric %s does not start with kassa_", name)
		}
	}
	checks := []struct {
		name   string
		labels []string
		want   float64
	}{
		{"kassa_http_requests_total", []string{"route", "GET /api/v1/invoices/{invoiceId}", "status", "200"}, 2},
		{"kassa_http_requests_total", []string{"route", "GET /api/v1/invoices/{invoiceId}", "status", "404"}, 1},
		{"kassa_http_requests_total", []string{"route", "unmatched", "status", "404"}, 1},
		{"kassa_http_request_duration_seconds", []string{"route", "GET /api/v1/invoices/{invoiceId}", "status", "200"}, 2},
		{"kassa_invoices_created_total", nil, 3},
		{"kassa_invoice_transitions_total", []string{"from", "unpaid", "to", "paid"}, 1},
		{"kassa_invoice_transitions_total", []string{"from", "underpaid", "to", "expired"}, 0},
		{"kassa_payments_detected_total", []string{"network", "devchain", "token", "USDT"}, 2},
		{"kassa_payments_detected_total", []string{"network", "other", "token", "unknown"}, 1},
		{"kassa_payments_detected_total", []string{"network", "ethereum", "token", "USDC"}, 0},
		{"kassa_settlements_total", []string{"network", "devchain", "outcome", "settled"}, 1},
		{"kassa_settlements_total", []string{"network", "bsc", "outcome", "failed"}, 0},
		{"kassa_webhook_attempts_total", []string{"outcome", "success"}, 1},
		{"kassa_webhook_attempts_total", []string{"outcome", "http_5xx"}, 0},
		{"kassa_webhook_attempt_duration_seconds", []string{"outcome", "timeout"}, 1},
		{"kassa_websocket_streams_open", []string{"scope", "merchant"}, 1},
		{"kassa_websocket_streams_open", []string{"scope", "commerce"}, 0},
		{"kassa_ready", nil, 0},
		{"kassa_ready_warnings", nil, 1},
		{"kassa_chain_head_lag_blocks", []string{"network", "devchain"}, 20},
		{"kassa_stream_subscribers", nil, 4},
		{"kassa_build_info", []string{"version", "v1.2.3"}, 1},
	}
	for _, c := range checks {
		if got := f.Value(t, c.name, c.labels...); got != c.want {
			t.Errorf("%s%v = %v, want %v", c.name, c.labels, got, c.want)
		}
	}
	if _, ok := f.Lookup("kassa_invoice_transitions_total", "from", "bogus"); ok {
		t.Error("an invalid status became a label")
	}
	if _, ok := f.Lookup("kassa_chain_head_lag_blocks", "network", "bsc-testnet"); ok {
		t.Error("a stale step (another instance watches the network now) reported a lag")
	}
	if age := f.Value(t, "kassa_chain_last_step_age_seconds", "network", "bsc-testnet"); age < 3500 {
		t.Errorf("step age %v, want about an hour", age)
	}
	// The store did not answer: the queue is not read (its figures would be stale or an error).
	if _, ok := f.Lookup("kassa_webhook_queue_depth", "state", "due"); ok {
		t.Error("webhook queue read while the store is down")
	}
	for _, name := range []string{"kassa_go_goroutines", "kassa_process_cpu_seconds_total"} {
		if f[name] == nil {
			t.Errorf("no %s: the runtime collectors are missing", name)
		}
	}
}

// TestWebhookQueueAtScrape: the queue's figures as the store reads them.
func TestWebhookQueueAtScrape(t *testing.T) {
	m := New(Config{})
	m.Scrape(Sources{
		Ready: func(context.Context) error { return nil },
		WebhookBacklog: func(ctx context.Context, at time.Time) (WebhookBacklog, error) {
			if _, ok := ctx.Deadline(); !ok {
				t.Error("the backlog query has no deadline")
			}
			return WebhookBacklog{Pending: 5, Due: 2, OldestPending: at.Add(-time.Hour), OldestDue: at.Add(-30 * time.Second)}, nil
		},
	})
	srv := httptest.NewServer(m.Handler())
	defer srv.Close()
	f := metricstest.Scrape(t, srv.URL)
	if f.Value(t, "kassa_ready") != 1 || f.Value(t, "kassa_webhook_queue_depth", "state", "due") != 2 ||
		f.Value(t, "kassa_webhook_queue_depth", "state", "scheduled") != 3 ||
		f.Value(t, "kassa_webhook_queue_oldest_pending_age_seconds") != 3600 ||
		f.Value(t, "kassa_webhook_queue_oldest_due_age_seconds") != 30 {
		t.Fatalf("queue figures wrong:\n%s", metricstest.ScrapeText(t, srv.URL))
	}
}

// TestPromtoolCheckMetrics: Prometheus' own linter finds nothing to say about the
// output (skipped where promtool is not installed).
func TestPromtoolCheckMetrics(t *testing.T) {
	m := New(Config{Registry: registry.Default()})
	m.Route("GET /healthz")(200, time.Millisecond)
	m.Scrape(Sources{Subscribers: func() int { return 0 }})
	srv := httptest.NewServer(m.Handler())
	defer srv.Close()
	metricstest.Promtool(t, metricstest.ScrapeText(t, srv.URL))
}

// TestRouteRecorderAllocates: counting a request of a status seen before
// allocates nothing.
func TestRouteRecorderAllocates(t *testing.T) {
	rec := New(Config{}).Route("GET /api/v1/invoices")
	rec(200, time.Millisecond)
	rec(201, time.Millisecond)
	if n := testing.AllocsPerRun(1000, func() { rec(201, time.Millisecond) }); n != 0 {
		t.Fatalf("%v allocations per request", n)
	}
}

// TestWebhookOutcomesKnown: the outcomes created at zero are webhook.Outcome's.
func TestWebhookOutcomesKnown(t *testing.T) {
	want := []string{webhook.OutcomeSuccess, webhook.OutcomeHTTP4xx, webhook.OutcomeHTTP5xx,
		webhook.OutcomeHTTPOther, webhook.OutcomeTimeout, webhook.OutcomeError}
	if !slices.Equal(webhookOutcomes, want) {
		t.Fatalf("webhookOutcomes %q, want %q", webhookOutcomes, want)
	}
}
