package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/store"
	"github.com/kassapay/kassa/store/storetest"
)

// receiver is a merchant's webhook endpoint on loopback: it verifies every request
// with the official Standard Webhooks library and answers what fail says.
type receiver struct {
	t   *testing.T
	srv *httptest.Server

	mu       sync.Mutex
	wh       *standardwebhooks.Webhook
	fail     bool            // answer 503 with Retry-After: 1
	attempts map[string]int  // webhook-id → requests
	acked    map[string]bool // webhook-id → answered 2xx
	types    map[string]string
}

func newReceiver(t *testing.T) *receiver {
	t.Helper()
	r := &receiver{t: t, attempts: map[string]int{}, acked: map[string]bool{}, types: map[string]string{}}
	r.srv = httptest.NewServer(http.HandlerFunc(r.serve))
	t.Cleanup(r.srv.Close)
	return r
}

func (r *receiver) serve(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(req.Body)
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := r.wh.Verify(body, req.Header); err != nil {
		r.t.Errorf("signature does not verify: %v", err)
		w.WriteHeader(400)
		return
	}
	var ev struct{ ID, Type string }
	if err := json.Unmarshal(body, &ev); err != nil || ev.ID != req.Header.Get("webhook-id") {
		r.t.Errorf("payload %s does not match webhook-id %s", body, req.Header.Get("webhook-id"))
	}
	r.attempts[ev.ID]++
	r.types[ev.ID] = ev.Type
	if r.fail {
		w.Header().Set("Retry-After", "1")
		w.WriteHeader(503)
		_, _ = io.WriteString(w, "busy, try later")
		return
	}
	r.acked[ev.ID] = true
	_, _ = io.WriteString(w, "ok")
}

func (r *receiver) set(fail bool) {
	r.mu.Lock()
	r.fail = fail
	r.mu.Unlock()
}

// waitFor polls cond until it holds or a minute passes.
func (r *receiver) waitFor(what string, cond func() bool) {
	r.t.Helper()
	deadline := time.Now().Add(time.Minute)
	for time.Now().Before(deadline) {
		r.mu.Lock()
		ok := cond()
		r.mu.Unlock()
		if ok {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	r.t.Fatalf("timed out waiting for %s", what)
}

// TestWebhookDeliveryEndToEnd runs kassa serve with a webhook endpoint on loopback
// that fails, then recovers; then fails across a restart of the service. Every
// event is delivered, signed, and acknowledged; the log shows each attempt.
func TestWebhookDeliveryEndToEnd(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		cfg.DataDir = t.TempDir() // kept across the restart: the server secret lives there
		k := startKassa(t, cfg)
		rcv := newReceiver(t)
		auth := map[string]string{"x-api-key": k.merchantKey}

		var ep struct{ ID, Secret string }
		wantStatus(t, call(t, "POST", k.url+"/api/v1/webhook-endpoints", auth,
			map[string]any{"url": rcv.srv.URL + "/hooks", "enabled_events": []string{"invoice.*"}}, &ep), 201)
		wh, err := standardwebhooks.NewWebhook(ep.Secret)
		if err != nil {
			t.Fatal(err)
		}
		rcv.wh = wh

		// The endpoint fails twice (503, Retry-After: 1), then recovers.
		rcv.set(true)
		created := createInvoice(t, k, auth)
		rcv.waitFor("two failed attempts", func() bool { return rcv.attempts[created] >= 2 })
		rcv.set(false)
		rcv.waitFor("the retry to succeed", func() bool { return rcv.acked[created] })

		var log struct {
			Data []struct {
				EventID  string `json:"event_id"`
				Status   string `json:"status"`
				Attempts []struct {
					Status         string `json:"status"`
					ResponseStatus *int   `json:"response_status"`
					LatencyMS      *int64 `json:"latency_ms"`
					Excerpt        string `json:"response_body_excerpt"`
				} `json:"attempts"`
			} `json:"data"`
		}
		// The receiver answered before kassa recorded the attempt: poll the log.
		for end := time.Now().Add(time.Minute); ; time.Sleep(50 * time.Millisecond) {
			wantStatus(t, call(t, "GET", k.url+"/api/v1/webhook-endpoints/"+ep.ID+"/deliveries", auth, nil, &log), 200)
			if len(log.Data) == 1 && log.Data[0].Status == "succeeded" || time.Now().After(end) {
				break
			}
		}
		if len(log.Data) != 1 || log.Data[0].EventID != created || log.Data[0].Status != "succeeded" {
			t.Fatalf("delivery log %+v", log.Data)
		}
		as := log.Data[0].Attempts
		// The receiver is on loopback (serve --dev allows it): the log keeps its
		// statuses but not its bodies.
		if len(as) < 3 || as[0].Status != "failed" || *as[0].ResponseStatus != 503 || as[0].Excerpt != kassa.WebhookBodyNotKept ||
			as[len(as)-1].Status != "succeeded" || as[len(as)-1].Excerpt != kassa.WebhookBodyNotKept || as[0].LatencyMS == nil {
			t.Errorf("attempts %+v", as)
		}

		// A retry pending across a restart is sent by the next process.
		rcv.set(true)
		second := createInvoice(t, k, auth)
		rcv.waitFor("a failed attempt before the restart", func() bool { return rcv.attempts[second] >= 1 })
		stopGracefully(t, k)
		rcv.set(false)
		k = startKassa(t, cfg)
		rcv.waitFor("the retry after the restart", func() bool { return rcv.acked[second] })

		// Nothing lost: every invoice event was acknowledged.
		var events struct {
			Data struct {
				Data []struct{ ID, Type string } `json:"data"`
			} `json:"data"`
		}
		wantStatus(t, call(t, "GET", k.url+"/api/v1/events?limit=100", map[string]string{"x-api-key": k.merchantKey}, nil, &events), 200)
		if len(events.Data.Data) < 2 {
			t.Fatalf("events %+v", events)
		}
		for _, e := range events.Data.Data {
			rcv.waitFor("event "+e.Type+" "+e.ID, func() bool { return rcv.acked[e.ID] })
		}
	})
}

// createInvoice creates a devnet invoice and returns the id of its invoice.created event.
func createInvoice(t *testing.T, k *instance, auth map[string]string) string {
	t.Helper()
	h := map[string]string{"x-api-key": auth["x-api-key"], "Idempotency-Key": kassa.NewUUID()}
	var created struct {
		InvoiceID string `json:"invoice_id"`
	}
	wantStatus(t, call(t, "POST", k.url+"/api/v1/invoices", h, map[string]any{"amount_usd": 3}, &created), 201)
	var events struct {
		Data struct {
			Data []struct{ ID, Type string } `json:"data"`
		} `json:"data"`
	}
	wantStatus(t, call(t, "GET", k.url+"/api/v1/events?type=invoice.created&limit=1", h, nil, &events), 200)
	if len(events.Data.Data) != 1 {
		t.Fatalf("no invoice.created event for %s", created.InvoiceID)
	}
	return events.Data.Data[0].ID
}
