package main

import (
	"context"
	"net/http"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/kassapay/kassa/metrics/metricstest"
	"github.com/kassapay/kassa/store"
	"github.com/kassapay/kassa/store/storetest"
)

// waitMetric scrapes k until cond holds on the figures, or a minute passes.
func waitMetric(t *testing.T, k *instance, what string, cond func(f metricstest.Families) bool) metricstest.Families {
	t.Helper()
	for end := time.Now().Add(time.Minute); ; time.Sleep(100 * time.Millisecond) {
		f := metricstest.Scrape(t, k.url+"/metrics")
		if cond(f) {
			return f
		}
		if time.Now().After(end) {
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

// TestMetricsEndToEnd runs kassa serve --dev and scrapes /metrics around real
// work: invoices paid in two parts and settled, webhooks delivered, a WebSocket
// stream opened and closed, an unknown URL; the dev chain's watcher reports its lag.
func TestMetricsEndToEnd(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		k := startKassa(t, cfg)
		url := k.url + "/metrics"
		before := metricstest.Scrape(t, url)
		delta := func(f metricstest.Families, name string, labels ...string) float64 {
			t.Helper()
			was, _ := before.Lookup(name, labels...)
			return f.Value(t, name, labels...) - was
		}
		rcv := newReceiver(t)
		auth := map[string]string{"x-api-key": k.merchantKey}
		var ep struct{ ID, Secret string }
		wantStatus(t, call(t, "POST", k.url+"/api/v1/webhook-endpoints", auth,
			map[string]any{"url": rcv.srv.URL + "/hooks", "enabled_events": []string{"invoice.paid"}}, &ep), 201)
		wh, err := standardwebhooks.NewWebhook(ep.Secret)
		if err != nil {
			t.Fatal(err)
		}
		rcv.wh = wh

		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		ws, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(k.url, "http")+"/ws/merchant/events",
			&websocket.DialOptions{HTTPHeader: http.Header{"X-Api-Key": {k.merchantKey}}})
		if err != nil {
			t.Fatal(err)
		}
		// The handshake's 101 can reach the client before the server counts the
		// stream: wait for the count (it must be exactly one, never more).
		open := waitMetric(t, k, "the stream to be counted open", func(f metricstest.Families) bool {
			n, _ := f.Lookup("kassa_websocket_streams_open", "scope", "merchant")
			return n >= 1
		})
		if n := open.Value(t, "kassa_websocket_streams_open", "scope", "merchant"); n != 1 {
			t.Errorf("%v merchant streams open, want 1", n)
		}
		if n := open.Value(t, "kassa_stream_subscribers"); n < 1 {
			t.Errorf("%v hub subscribers with a stream open", n)
		}
		ws.Close(websocket.StatusNormalClosure, "")

		payAndSettle(t, k, map[string]string{"x-api-key": k.merchantKey}) // 1 + 2 USD, settled on devnet
		wantStatus(t, call(t, "GET", k.url+"/api/v1/invoices/00000000-0000-7000-8000-000000000000/nope/x", auth, nil, nil), 404)
		wantStatus(t, call(t, "GET", k.url+"/no/such/page", nil, nil, nil), 404)

		after := waitMetric(t, k, "the webhook delivery and the stream's close", func(f metricstest.Families) bool {
			ok, _ := f.Lookup("kassa_webhook_attempts_total", "outcome", "success")
			streams, _ := f.Lookup("kassa_websocket_streams_open", "scope", "merchant")
			was, _ := before.Lookup("kassa_webhook_attempts_total", "outcome", "success")
			return ok-was >= 1 && streams == 0
		})
		checks := []struct {
			name   string
			labels []string
			want   float64
		}{
			{"kassa_invoices_created_total", nil, 1},
			{"kassa_invoice_transitions_total", []string{"from", "unpaid", "to", "underpaid"}, 1},
			{"kassa_invoice_transitions_total", []string{"from", "underpaid", "to", "paid"}, 1},
			{"kassa_payments_detected_total", []string{"network", "bsc-testnet", "token", "USDT"}, 2},
			{"kassa_settlements_total", []string{"network", "bsc-testnet", "outcome", "settled"}, 2},
			{"kassa_webhook_attempts_total", []string{"outcome", "success"}, 1},
			{"kassa_webhook_attempt_duration_seconds", []string{"outcome", "success"}, 1},
			{"kassa_http_requests_total", []string{"route", "POST /api/v1/invoices", "status", "201"}, 1},
			{"kassa_http_requests_total", []string{"route", "POST /api/v1/devnet/invoices/{invoiceId}/payments", "status", "201"}, 2},
			{"kassa_http_requests_total", []string{"route", "GET /api/v1/invoices/{first}/{rest...}", "status", "404"}, 1},
			{"kassa_http_requests_total", []string{"route", "unmatched", "status", "404"}, 1},
			{"kassa_http_requests_total", []string{"route", "GET /ws/merchant/events", "status", "101"}, 1},
		}
		for _, c := range checks {
			if got := delta(after, c.name, c.labels...); got != c.want {
				t.Errorf("%s%v rose by %v, want %v", c.name, c.labels, got, c.want)
			}
		}
		if after.Value(t, "kassa_ready") != 1 || after.Value(t, "kassa_webhook_queue_depth", "state", "due") < 0 {
			t.Errorf("readiness or queue missing")
		}
		if _, ok := after.Lookup("kassa_chain_head_lag_blocks", "network", "devchain"); !ok {
			t.Errorf("no head lag for the dev chain, which serve --dev watches")
		}
		// The chains' metrics are wired: the dev chain's watcher calls its node and scans blocks.
		if n := after.Value(t, "kassa_chain_rpc_requests_total", "network", "devchain", "method", "eth_getBlockByNumber", "outcome", "ok"); n < 1 {
			t.Errorf("%v eth_getBlockByNumber calls counted on the dev chain", n)
		}
		if n := after.Value(t, "kassa_chain_blocks_scanned_total", "network", "devchain"); n < 1 {
			t.Errorf("%v dev chain blocks scanned", n)
		}
		if n := after.Value(t, "kassa_chain_processed_block", "network", "devchain"); n < 1 {
			t.Errorf("processed block %v on the dev chain", n)
		}
		if after.Value(t, "kassa_build_info") != 1 || after["kassa_go_goroutines"] == nil || after["kassa_process_resident_memory_bytes"] == nil {
			t.Errorf("build info or runtime metrics missing")
		}
		t.Run("promtool", func(t *testing.T) { metricstest.Promtool(t, metricstest.ScrapeText(t, url)) })
	})
}

// TestMetricsFlags: --metrics=false turns /metrics off, --metrics-allowed-networks
// (or its environment twin) refuses loopback when it is not listed, and a bad list
// stops serve before it starts.
func TestMetricsFlags(t *testing.T) {
	refused := func(t *testing.T, k *instance) {
		t.Helper()
		var body struct{ Error struct{ Code string } }
		wantStatus(t, call(t, "GET", k.url+"/metrics", nil, nil, &body), 404)
		if body.Error.Code != "route_not_found" {
			t.Errorf("refused /metrics: code %q, want route_not_found", body.Error.Code)
		}
	}
	t.Run("off", func(t *testing.T) {
		refused(t, startKassa(t, storetest.SQLiteConfig(t), "--metrics=false"))
	})
	t.Run("loopback not allowed", func(t *testing.T) {
		refused(t, startKassa(t, storetest.SQLiteConfig(t), "--metrics-allowed-networks", "10.0.0.0/8, 2001:db8::/32"))
	})
	t.Run("environment", func(t *testing.T) {
		dir := t.TempDir()
		k := startServe(t, []string{"KASSA_METRICS_ALLOWED_NETWORKS=192.0.2.0/24"},
			"serve", "--dev", "--addr", "127.0.0.1:0", "--devchain-addr", "127.0.0.1:0", "--data-dir", dir)
		refused(t, k)
	})
	t.Run("bad list", func(t *testing.T) {
		out, err := exec.Command(kassaBin, "serve", "--addr", "127.0.0.1:0", "--data-dir", t.TempDir(),
			"--metrics-allowed-networks", "everyone").CombinedOutput()
		if err == nil || !strings.Contains(string(out), "--metrics-allowed-networks") {
			t.Fatalf("serve with a bad network list: %v\n%s", err, out)
		}
	})
}
