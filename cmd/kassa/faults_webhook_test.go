package main

import (
	"io"
	"net"
	"net/http"
	"slices"
	"sync"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/store/storetest"
)

// TestFaultWebhookReceiverDown takes a merchant's webhook receiver away
// (connection refused) for KASSA_FAULTS_WEBHOOK_DOWN (default 2m) while invoices
// are created, then brings it back on the same address. Every event is then
// delivered and acknowledged exactly once, and the endpoint stays enabled.
//
// Retries follow delivery.Schedule (5 s, 5 min, 30 min, … ±10 %), so an
// event that failed twice waits about five minutes. The test leaves to the
// schedule the deliveries due within KASSA_FAULTS_WEBHOOK_WAIT (default 10m) of
// the receiver's return, and resends the others through the API
// (POST /api/v1/events/{id}/resend, the operator's path), logging when the
// schedule had them due; it then waits at most a minute past the last due
// attempt. So it ends within the outage plus KASSA_FAULTS_WEBHOOK_WAIT plus a
// minute.
func TestFaultWebhookReceiverDown(t *testing.T) {
	faultsOn(t)
	down := envDuration("KASSA_FAULTS_WEBHOOK_DOWN", 2*time.Minute)
	wait := envDuration("KASSA_FAULTS_WEBHOOK_WAIT", 10*time.Minute)
	k := newFaultKassa(t, storetest.SQLiteConfig(t), "KASSA_WEBHOOK_ALLOW_PRIVATE=true") // the receiver is on loopback
	rcv := &downReceiver{t: t, addr: freeAddr(t), requests: map[string]int{}, acks: map[string]int{}}
	rcv.up()
	t.Cleanup(rcv.down)
	var ep struct{ ID, Secret string }
	wantStatus(t, call(t, "POST", k.url()+"/api/v1/webhook-endpoints", k.auth,
		map[string]any{"url": "http://" + rcv.addr + "/hooks", "enabled_events": []string{"invoice.*"}}, &ep), 201)
	wh, err := standardwebhooks.NewWebhook(ep.Secret)
	if err != nil {
		t.Fatal(err)
	}
	rcv.wh = wh

	create := func() {
		h := map[string]string{"x-api-key": k.key, "Idempotency-Key": kassa.NewUUID()}
		wantStatus(t, call(t, "POST", k.url()+"/api/v1/invoices", h, map[string]any{"amount_usd": 2}, nil), 201)
	}
	for range 3 {
		create()
	}
	rcv.waitAll(t, k, time.Minute)

	rcv.down()
	downAt := time.Now()
	const duringOutage = 20
	for i := range duringOutage {
		time.Sleep(time.Until(downAt.Add(down * time.Duration(i) / duringOutage)))
		create()
	}
	time.Sleep(time.Until(downAt.Add(down)))
	before := rcv.requestCount()
	rcv.up()
	backAt := time.Now()

	// Deliveries whose next attempt is due within the wait are left to the
	// schedule; the others are resent (a resend of an event whose own retry is
	// about to run would deliver it twice, which at-least-once allows but this
	// test counts as a duplicate).
	due := pendingDue(t, k, ep.ID)
	var dueIn, waitFor time.Duration
	var late []string
	for id, at := range due {
		in := max(0, at.Sub(backAt))
		dueIn = max(dueIn, in)
		if in > wait {
			late = append(late, id)
		} else {
			waitFor = max(waitFor, in)
		}
	}
	if len(late) > 0 {
		t.Logf("%d deliveries are due up to %v after the receiver is back, past the %v wait: resending them", len(late), dueIn.Round(time.Second), wait)
	}
	for _, id := range late {
		wantStatus(t, call(t, "POST", k.url()+"/api/v1/events/"+id+"/resend", k.auth, map[string]any{"endpoint_id": ep.ID}, nil), 202)
	}
	delivered := rcv.waitAll(t, k, waitFor+time.Minute).Sub(backAt)
	// No attempt can come after, but the scheduled ones of the events resent by
	// hand, due past the wait: the receiver's counts are final.
	waitNonePending(t, k, ep.ID, late)

	attempts, failed := deliveryAttempts(t, k, ep.ID)
	var endpoint struct {
		Status         string  `json:"status"`
		DisabledReason *string `json:"disabled_reason"`
	}
	wantStatus(t, call(t, "GET", k.url()+"/api/v1/webhook-endpoints/"+ep.ID, k.auth, nil, &endpoint), 200)
	if endpoint.Status != "enabled" {
		t.Errorf("endpoint %s (%v) after the outage, want enabled", endpoint.Status, endpoint.DisabledReason)
	}
	events, requests, dups := rcv.figures()
	if dups > 0 {
		t.Errorf("%d events were acknowledged more than once", dups)
	}
	if failed > 0 {
		t.Errorf("%d deliveries ended failed", failed)
	}
	figure(t, "receiver down %v (connection refused), %d events created meanwhile; the schedule's next attempts due up to %v after it was back; resent by hand (due past the %v wait): %d",
		down, duringOutage, dueIn.Round(time.Second), wait, len(late))
	figure(t, "all %d events delivered %v after the receiver was back; attempts %d (%d reached the receiver, %d of them before the outage); duplicates by webhook-id %d; endpoint %s",
		events, delivered.Round(time.Millisecond), attempts, requests, before, dups, endpoint.Status)
}

// downReceiver is a webhook receiver whose listener can be closed, so kassa's
// connections are refused, and opened again on the same address.
type downReceiver struct {
	t    *testing.T
	addr string
	wh   *standardwebhooks.Webhook

	mu       sync.Mutex
	srv      *http.Server
	requests map[string]int // webhook-id → requests received
	acks     map[string]int // webhook-id → 2xx answered
}

func (r *downReceiver) up() {
	r.t.Helper()
	l, err := net.Listen("tcp", r.addr)
	if err != nil {
		r.t.Fatalf("the receiver cannot listen on %s again: %v", r.addr, err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(r.serve)}
	go srv.Serve(l)
	r.mu.Lock()
	r.srv = srv
	r.mu.Unlock()
}

// down closes the listener and every connection: new attempts are refused.
func (r *downReceiver) down() {
	r.mu.Lock()
	srv := r.srv
	r.srv = nil
	r.mu.Unlock()
	if srv != nil {
		srv.Close()
	}
}

func (r *downReceiver) serve(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(req.Body)
	r.mu.Lock()
	defer r.mu.Unlock()
	id := req.Header.Get("webhook-id")
	r.requests[id]++
	if r.wh == nil || r.wh.Verify(body, req.Header) != nil {
		r.t.Errorf("webhook %s does not verify", id)
		w.WriteHeader(400)
		return
	}
	r.acks[id]++
	_, _ = io.WriteString(w, "ok")
}

// requestCount is how many requests reached the receiver so far.
func (r *downReceiver) requestCount() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, c := range r.requests {
		n += c
	}
	return n
}

// figures returns the events acknowledged, the requests received, and the
// events acknowledged more than once.
func (r *downReceiver) figures() (events, requests, dups int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, n := range r.acks {
		if n > 1 {
			dups++
		}
	}
	for _, n := range r.requests {
		requests += n
	}
	return len(r.acks), requests, dups
}

// missing returns the ids of the merchant's invoice events the receiver has not
// acknowledged.
func (r *downReceiver) missing(t *testing.T, k *faultKassa) []string {
	t.Helper()
	var list struct {
		Data struct {
			Data    []struct{ ID string } `json:"data"`
			HasMore bool                  `json:"has_more"`
		} `json:"data"`
	}
	wantStatus(t, call(t, "GET", k.url()+"/api/v1/events?type=invoice.*&limit=100", k.auth, nil, &list), 200)
	if list.Data.HasMore {
		t.Fatal("more than 100 events: the test reads one page")
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	var ids []string
	for _, e := range list.Data.Data {
		if r.acks[e.ID] == 0 {
			ids = append(ids, e.ID)
		}
	}
	return ids
}

// waitAll waits up to limit for every event to be acknowledged and returns when
// the last was; it fails the test if some never were.
func (r *downReceiver) waitAll(t *testing.T, k *faultKassa, limit time.Duration) time.Time {
	t.Helper()
	for deadline := time.Now().Add(limit); ; time.Sleep(250 * time.Millisecond) {
		missing := r.missing(t, k)
		if len(missing) == 0 {
			return time.Now()
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d events not delivered within %v: %v", len(missing), limit, missing)
		}
	}
}

// deliveryLog is one page of an endpoint's delivery log.
type deliveryLog struct {
	Data []struct {
		EventID       string  `json:"event_id"`
		Status        string  `json:"status"`
		AttemptCount  int     `json:"attempt_count"`
		NextAttemptAt *string `json:"next_attempt_at"`
	} `json:"data"`
	HasMore bool `json:"has_more"`
}

// readDeliveries reads the endpoint's delivery log (one page of 100).
func readDeliveries(t *testing.T, k *faultKassa, endpoint string) deliveryLog {
	t.Helper()
	var log deliveryLog
	wantStatus(t, call(t, "GET", k.url()+"/api/v1/webhook-endpoints/"+endpoint+"/deliveries?limit=100", k.auth, nil, &log), 200)
	if log.HasMore {
		t.Fatal("more than 100 deliveries: the test reads one page")
	}
	return log
}

// pendingDue returns, per event, when its pending delivery's next attempt is due.
func pendingDue(t *testing.T, k *faultKassa, endpoint string) map[string]time.Time {
	t.Helper()
	due := map[string]time.Time{}
	for _, d := range readDeliveries(t, k, endpoint).Data {
		if d.Status != "pending" || d.NextAttemptAt == nil {
			continue
		}
		at, err := time.Parse(time.RFC3339Nano, *d.NextAttemptAt)
		if err != nil {
			t.Fatalf("next_attempt_at %q: %v", *d.NextAttemptAt, err)
		}
		due[d.EventID] = at
	}
	return due
}

// waitNonePending waits up to a minute until none of the endpoint's deliveries is
// pending, but those of the events resent (a resend queues a new delivery; the
// event's scheduled one stays pending, due past the test's wait): each other has
// its final answer recorded, so no attempt (and no duplicate) reaches the
// receiver after it.
func waitNonePending(t *testing.T, k *faultKassa, endpoint string, resent []string) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(250 * time.Millisecond) {
		pending := 0
		for _, d := range readDeliveries(t, k, endpoint).Data {
			if d.Status == kassa.DeliveryPending && !slices.Contains(resent, d.EventID) {
				pending++
			}
		}
		if pending == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d deliveries still pending a minute after every event was acknowledged", pending)
		}
	}
}

// deliveryAttempts returns the attempts of all the endpoint's deliveries and how
// many deliveries ended failed.
func deliveryAttempts(t *testing.T, k *faultKassa, endpoint string) (attempts, failed int) {
	t.Helper()
	for _, d := range readDeliveries(t, k, endpoint).Data {
		attempts += d.AttemptCount
		if d.Status == "failed" {
			failed++
		}
	}
	return attempts, failed
}
