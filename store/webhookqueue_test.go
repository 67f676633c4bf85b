package store_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"kassa"
	"kassa/store"
	"kassa/store/storetest"
)

// claim claims due jobs (up to 100) for lease and checks that there are want.
func (f *fixture) claim(t *testing.T, lease time.Duration, want int) []*kassa.WebhookJob {
	t.Helper()
	jobs, err := f.db.ClaimWebhookJobs(f.ctx, 100, lease)
	must(t, err)
	if len(jobs) != want {
		var ids []string
		for _, j := range jobs {
			ids = append(ids, j.Delivery.ID+" "+j.Delivery.EventType)
		}
		t.Fatalf("claimed %d jobs %v, want %d", len(jobs), ids, want)
	}
	return jobs
}

// finish logs an attempt of job at the clock's time with result res.
func (f *fixture) finish(t *testing.T, job *kassa.WebhookJob, res kassa.WebhookResult) {
	t.Helper()
	must(t, f.db.FinishWebhookAttempt(f.ctx, job, attemptOf(f.clock.Now(), res), res))
}

func attemptOf(at time.Time, res kassa.WebhookResult) kassa.WebhookAttempt {
	return kassa.WebhookAttempt{At: at, StatusCode: res.StatusCode, LatencyMS: 42,
		ResponseExcerpt: fmt.Sprintf("status %d", res.StatusCode), Error: res.Error, Succeeded: res.Succeeded()}
}

// delivery returns the endpoint's only delivery.
func (f *fixture) delivery(t *testing.T, p kassa.Principal, endpointID string) *kassa.WebhookDelivery {
	t.Helper()
	ds := f.deliveries(t, p, endpointID)
	if len(ds) != 1 {
		t.Fatalf("%d deliveries, want 1", len(ds))
	}
	return ds[0]
}

// jobPayload is the part of a delivered event the tests read.
type jobPayload struct {
	ID         string `json:"id"`
	Object     string `json:"object"`
	APIVersion string `json:"api_version"`
	Type       string `json:"type"`
	Created    int64  `json:"created"`
	Data       struct {
		Object map[string]any `json:"object"`
	} `json:"data"`
}

func parsePayload(t *testing.T, b []byte) jobPayload {
	t.Helper()
	var p jobPayload
	if err := json.Unmarshal(b, &p); err != nil {
		t.Fatalf("payload is not JSON: %v: %s", err, b)
	}
	return p
}

func TestWebhookDeliveriesQueuedWithEvents(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		f := newFixture(t, cfg)
		p := principal(f.m)
		other := f.merchant(t, "other@example.com")
		invoices := f.endpoint(t, p, "invoices", "invoice.*")
		payments := f.endpoint(t, p, "payments", "invoice_payment.*")
		paid := f.endpoint(t, p, "paid", kassa.EventInvoicePaid, kassa.EventInvoiceCanceled)
		off := f.endpoint(t, p, "off", "*")
		_, err := f.db.UpdateWebhookEndpoint(f.ctx, p, off.ID, kassa.WebhookEndpointInput{Disabled: ptr(true)})
		must(t, err)
		mainnet := kassa.Principal{MerchantID: f.m.ID, Environment: kassa.Mainnet}
		onMainnet := f.endpoint(t, mainnet, "mainnet", "*")
		foreign := f.endpoint(t, principal(other), "foreign", "*")

		inv := f.invoice(t, f.m, 1000, nil)
		f.clock.Advance(time.Second)
		f.pay(t, inv, "0xaa", 400, false) // invoice_payment.created, invoice.updated
		late := f.endpoint(t, p, "late", "*")
		events := f.merchantEvents(t, f.m)
		slices.Reverse(events)
		if fmt.Sprint(eventTypesOf(events)) != "[invoice.created invoice_payment.created invoice.updated]" {
			t.Fatalf("events %v", eventTypesOf(events))
		}

		tests := []struct {
			name string
			p    kassa.Principal
			ep   *kassa.WebhookEndpoint
			want []*kassa.Event
		}{
			{"invoice.* gets invoice events only", p, invoices, []*kassa.Event{events[2], events[0]}},
			{"invoice_payment.* gets payment events", p, payments, []*kassa.Event{events[1]}},
			{"exact types that did not happen", p, paid, nil},
			{"disabled endpoint", p, off, nil},
			{"endpoint in another environment", mainnet, onMainnet, nil},
			{"endpoint of another merchant", principal(other), foreign, nil},
			{"endpoint created after the events", p, late, nil},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				ds := f.deliveries(t, tt.p, tt.ep.ID)
				if len(ds) != len(tt.want) {
					t.Fatalf("%d deliveries, want %d: %s", len(ds), len(tt.want), jsonOf(t, ds))
				}
				for i, d := range ds {
					e := tt.want[i]
					if !strings.HasPrefix(d.ID, "whd_") || d.EndpointID != tt.ep.ID || d.EventID != e.ID || d.EventType != e.Type ||
						d.Status != kassa.DeliveryPending || d.Attempts != 0 || d.MerchantID != f.m.ID || d.Environment != kassa.Devnet ||
						d.NextAttemptAt == nil || !d.NextAttemptAt.Equal(e.Created) || !d.CreatedAt.Equal(e.Created) || len(d.Log) != 0 {
						t.Fatalf("delivery %d = %s, want one of %s %s", i, jsonOf(t, d), e.Type, e.ID)
					}
				}
			})
		}
	})
}

func TestWebhookClaimLeaseAndFinish(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		f := newFixture(t, cfg)
		p := principal(f.m)
		ep := f.endpoint(t, p, "hook", "invoice.*")
		inv := f.invoice(t, f.m, 1000, func(c *kassa.InvoiceCreate) { c.Description = ptr("Tea & <cake>") })
		events := f.merchantEvents(t, f.m)
		f.clock.Advance(time.Second)

		jobs := f.claim(t, time.Minute, 1)
		j := jobs[0]
		pl := parsePayload(t, j.Payload)
		if pl.ID != events[0].ID || pl.Object != "event" || pl.APIVersion != kassa.APIVersion || pl.Type != kassa.EventInvoiceCreated ||
			pl.Created != events[0].Created.Unix() || pl.Data.Object["id"] != inv.ID || pl.Data.Object["description"] != "Tea & <cake>" {
			t.Fatalf("payload %s", j.Payload)
		}
		if string(j.Payload) != apiJSON(t, events[0]) {
			t.Fatalf("payload\n%s\nwant the event as the API shows it\n%s", j.Payload, apiJSON(t, events[0]))
		}
		if j.URL != ep.URL || fmt.Sprint(j.Secrets) != fmt.Sprint([]string{ep.Secret}) || j.Lease == "" ||
			j.Delivery.EndpointID != ep.ID || j.Delivery.EventID != events[0].ID || j.Delivery.EventType != kassa.EventInvoiceCreated ||
			j.Delivery.Attempts != 0 || j.Delivery.MerchantID != f.m.ID || j.Delivery.Environment != kassa.Devnet {
			t.Fatalf("job %+v", j)
		}

		// Leased: nobody else gets it until the lease runs out.
		f.claim(t, time.Minute, 0)
		f.clock.Advance(time.Minute - time.Microsecond)
		f.claim(t, time.Minute, 0)
		f.clock.Advance(time.Microsecond)
		again := f.claim(t, time.Minute, 1)[0]
		if again.Delivery.ID != j.Delivery.ID || again.Lease == j.Lease || again.Lease == "" {
			t.Fatalf("reclaimed %s lease %q, first lease %q", again.Delivery.ID, again.Lease, j.Lease)
		}
		// The first worker's lease is gone: it cannot finish the job.
		err := f.db.FinishWebhookAttempt(f.ctx, j, attemptOf(f.clock.Now(), kassa.WebhookResult{StatusCode: 200}), kassa.WebhookResult{StatusCode: 200})
		wantErr(t, err, kassa.KindConflict, "lease_lost")
		if d := f.delivery(t, p, ep.ID); d.Status != kassa.DeliveryPending || d.Attempts != 0 || len(d.Log) != 0 {
			t.Fatalf("a refused finish changed the delivery: %s", jsonOf(t, d))
		}
		forged := *again
		forged.Lease = "not-the-lease"
		err = f.db.FinishWebhookAttempt(f.ctx, &forged, attemptOf(f.clock.Now(), kassa.WebhookResult{StatusCode: 200}), kassa.WebhookResult{StatusCode: 200})
		wantErr(t, err, kassa.KindConflict, "lease_lost")

		at := f.clock.Now()
		must(t, f.db.FinishWebhookAttempt(f.ctx, again, kassa.WebhookAttempt{At: at, StatusCode: 204, LatencyMS: 87,
			ResponseExcerpt: "thanks \x00é", Succeeded: true}, kassa.WebhookResult{StatusCode: 204}))
		d := f.delivery(t, p, ep.ID)
		now := f.clock.Now().Truncate(time.Microsecond)
		if d.Status != kassa.DeliverySucceeded || d.Attempts != 1 || d.NextAttemptAt != nil || !d.UpdatedAt.Equal(now) || len(d.Log) != 1 {
			t.Fatalf("delivery after success: %s", jsonOf(t, d))
		}
		a := d.Log[0]
		if a.Attempt != 1 || !a.At.Equal(at.Truncate(time.Microsecond)) || a.StatusCode != 204 || a.LatencyMS != 87 ||
			a.ResponseExcerpt != "thanks é" || a.Error != "" || !a.Succeeded {
			t.Fatalf("attempt %+v", a)
		}
		// Finished: neither claimable nor finishable again.
		err = f.db.FinishWebhookAttempt(f.ctx, again, attemptOf(f.clock.Now(), kassa.WebhookResult{StatusCode: 200}), kassa.WebhookResult{StatusCode: 200})
		wantErr(t, err, kassa.KindConflict, "lease_lost")
		f.clock.Advance(time.Hour)
		f.claim(t, time.Minute, 0)
		if ep := f.getEndpoint(t, p, ep.ID); ep.FailingSince != nil || ep.Status != kassa.EndpointEnabled {
			t.Fatalf("endpoint after success %+v", ep)
		}
	})
}

// TestWebhookClaimHoldsUnreadable: a delivery whose endpoint secret does not
// open is leased by the claim that met it, not sent, so it waits for its lease
// instead of coming back at the head of every claim ahead of deliveries that can
// be sent (decisions.md, "Startup refuses ...").
func TestWebhookClaimHoldsUnreadable(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		f := newFixture(t, cfg)
		p := principal(f.m)
		broken := f.endpoint(t, p, "broken", "invoice.created")
		f.invoice(t, f.m, 1000, nil) // the oldest delivery: broken's
		f.clock.Advance(time.Second)
		ok := f.endpoint(t, p, "ok", "invoice.created")
		f.invoice(t, f.m, 1000, nil) // one delivery each
		// A sealed secret moved to another row does not open there.
		if _, err := storetest.RawDB(t, cfg).ExecContext(f.ctx, `UPDATE webhook_endpoints SET secret =
			(SELECT secret FROM webhook_endpoints WHERE id = $1) WHERE id = $2`, ok.ID, broken.ID); err != nil {
			t.Fatal(err)
		}
		f.clock.Advance(time.Second)
		var sent []*kassa.WebhookJob
		for range 4 { // one delivery a claim: broken's two are held, ok's is sent
			jobs, err := f.db.ClaimWebhookJobs(f.ctx, 1, time.Minute)
			must(t, err)
			sent = append(sent, jobs...)
		}
		if len(sent) != 1 || sent[0].Delivery.EndpointID != ok.ID {
			t.Fatalf("claims of one sent %d jobs, want ok's delivery alone", len(sent))
		}
		f.finish(t, sent[0], kassa.WebhookResult{StatusCode: 200})
		f.clock.Advance(time.Minute) // held until their lease ends, then met and held again
		f.claim(t, time.Minute, 0)
		var held int
		must(t, storetest.RawDB(t, cfg).QueryRowContext(f.ctx, `SELECT count(*) FROM webhook_deliveries
			WHERE endpoint_id = $1 AND status = 'pending' AND lease_until > $2`, broken.ID, f.clock.Now().UnixMicro()).Scan(&held))
		if held != 2 {
			t.Fatalf("%d of broken's deliveries pending and leased, want 2", held)
		}
	})
}

func TestWebhookRetrySchedule(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		f := newFixture(t, cfg)
		p := principal(f.m)
		ep := f.endpoint(t, p, "hook", "*")
		f.invoice(t, f.m, 1000, nil)
		start := f.clock.Now().Truncate(time.Microsecond)

		steps := []struct {
			res  kassa.WebhookResult
			wait time.Duration // the schedule's wait before the next attempt
		}{
			{kassa.WebhookResult{StatusCode: 500}, 5 * time.Second},
			{kassa.WebhookResult{Error: "dial tcp: connection refused"}, 5 * time.Minute},
			{kassa.WebhookResult{StatusCode: 404}, 30 * time.Minute},
		}
		for i, s := range steps {
			jobs := f.claim(t, time.Minute, 1)
			if jobs[0].Delivery.Attempts != i {
				t.Fatalf("attempt %d: job says %d attempts made", i+1, jobs[0].Delivery.Attempts)
			}
			f.finish(t, jobs[0], s.res)
			now := f.clock.Now().Truncate(time.Microsecond)
			d := f.delivery(t, p, ep.ID)
			lo, hi := now.Add(s.wait-s.wait/10), now.Add(s.wait+s.wait/10)
			if d.Status != kassa.DeliveryPending || d.Attempts != i+1 || d.NextAttemptAt == nil ||
				d.NextAttemptAt.Before(lo) || d.NextAttemptAt.After(hi) || len(d.Log) != i+1 {
				t.Fatalf("after attempt %d: %s, want next attempt in [%s, %s]", i+1, jsonOf(t, d), lo, hi)
			}
			got := d.Log[i]
			if got.Attempt != i+1 || got.StatusCode != s.res.StatusCode || got.Error != s.res.Error || got.Succeeded || got.LatencyMS != 42 {
				t.Fatalf("attempt %d logged as %+v", i+1, got)
			}
			if ep := f.getEndpoint(t, p, ep.ID); ep.FailingSince == nil || !ep.FailingSince.Equal(start) || ep.Status != kassa.EndpointEnabled {
				t.Fatalf("endpoint failing since %v, want %v (the first failure)", ep.FailingSince, start)
			}
			// Not due before its time, due after it.
			f.clock.Set(lo.Add(-time.Microsecond))
			f.claim(t, time.Minute, 0)
			f.clock.Set(hi)
		}
		// 429 with Retry-After waits as asked.
		jobs := f.claim(t, time.Minute, 1)
		f.finish(t, jobs[0], kassa.WebhookResult{StatusCode: 429, RetryAfter: 3 * time.Hour})
		d := f.delivery(t, p, ep.ID)
		if want := f.clock.Now().Truncate(time.Microsecond).Add(3 * time.Hour); d.NextAttemptAt == nil || !d.NextAttemptAt.Equal(want) {
			t.Fatalf("next attempt after Retry-After %v, want %v", d.NextAttemptAt, want)
		}
		f.clock.Advance(3 * time.Hour)
		jobs = f.claim(t, time.Minute, 1)
		f.finish(t, jobs[0], kassa.WebhookResult{StatusCode: 200})
		d = f.delivery(t, p, ep.ID)
		if d.Status != kassa.DeliverySucceeded || d.Attempts != 5 || len(d.Log) != 5 || !d.Log[4].Succeeded {
			t.Fatalf("delivery %s", jsonOf(t, d))
		}
		if ep := f.getEndpoint(t, p, ep.ID); ep.FailingSince != nil {
			t.Fatalf("failing since %v after a success", ep.FailingSince)
		}
	})
}

func TestWebhookRetriesEnd(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		f := newFixture(t, cfg)
		p := principal(f.m)
		ep := f.endpoint(t, p, "hook", "*")
		f.invoice(t, f.m, 1000, nil)
		// A success elsewhere each day keeps the endpoint from being disabled.
		for attempt := 1; attempt <= len(kassa.WebhookSchedule)+1; attempt++ {
			jobs := f.claim(t, time.Minute, 1)
			f.finish(t, jobs[0], kassa.WebhookResult{StatusCode: 503})
			f.clock.Advance(time.Second) // delivery ids sort by creation only across milliseconds
			f.invoice(t, f.m, 1000, nil)
			ok := f.claim(t, time.Minute, 1)[0]
			f.finish(t, ok, kassa.WebhookResult{StatusCode: 200})
			f.clock.Advance(27 * time.Hour) // past the longest wait, 24 h, and its jitter
		}
		ds := f.deliveries(t, p, ep.ID)
		first := ds[len(ds)-1]
		if first.Status != kassa.DeliveryFailed || first.Attempts != 10 || first.NextAttemptAt != nil || len(first.Log) != 10 {
			t.Fatalf("first delivery after ten failures: %s", jsonOf(t, first))
		}
		if got := f.getEndpoint(t, p, ep.ID); got.Status != kassa.EndpointEnabled {
			t.Fatalf("endpoint %+v", got)
		}
		f.claim(t, time.Minute, 0)
	})
}

// disabledEvent returns the merchant's newest event, checking it is the
// webhook_endpoint.disabled event of ep with reason, and without its secrets.
func (f *fixture) disabledEvent(t *testing.T, ep *kassa.WebhookEndpoint, reason string) *kassa.Event {
	t.Helper()
	es := f.merchantEvents(t, f.m)
	e := es[0]
	var obj struct {
		ID             string  `json:"id"`
		Object         string  `json:"object"`
		Status         string  `json:"status"`
		DisabledReason *string `json:"disabled_reason"`
	}
	must(t, json.Unmarshal(e.Data, &obj))
	if e.Type != kassa.EventWebhookEndpointDisabled || obj.ID != ep.ID || obj.Object != "webhook_endpoint" ||
		obj.Status != kassa.EndpointDisabled || obj.DisabledReason == nil || *obj.DisabledReason != reason {
		t.Fatalf("newest event %s %s", e.Type, e.Data)
	}
	if strings.Contains(string(e.Data), "secret") || strings.Contains(string(e.Data), ep.Secret) {
		t.Fatalf("disabled event shows the secret: %s", e.Data)
	}
	return e
}

func TestWebhookGoneDisablesEndpoint(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		f := newFixture(t, cfg)
		p := principal(f.m)
		gone := f.endpoint(t, p, "gone", "invoice.*")
		watcher := f.endpoint(t, p, "watcher", "webhook_endpoint.*")
		f.invoice(t, f.m, 1000, nil)
		f.clock.Advance(time.Second)
		f.invoice(t, f.m, 1000, nil)

		jobs, err := f.db.ClaimWebhookJobs(f.ctx, 1, time.Minute)
		must(t, err)
		if len(jobs) != 1 {
			t.Fatalf("limit 1 claimed %d", len(jobs))
		}
		f.finish(t, jobs[0], kassa.WebhookResult{StatusCode: 410})

		got := f.getEndpoint(t, p, gone.ID)
		if got.Status != kassa.EndpointDisabled || got.DisabledReason == nil || *got.DisabledReason != kassa.DisabledGone {
			t.Fatalf("endpoint after 410: %+v", got)
		}
		for _, d := range f.deliveries(t, p, gone.ID) {
			if d.Status != kassa.DeliveryFailed || d.NextAttemptAt != nil {
				t.Fatalf("delivery of a gone endpoint: %s", jsonOf(t, d))
			}
		}
		e := f.disabledEvent(t, gone, kassa.DisabledGone)
		// Other endpoints hear about it.
		d := f.delivery(t, p, watcher.ID)
		if d.EventID != e.ID || d.EventType != kassa.EventWebhookEndpointDisabled {
			t.Fatalf("watcher delivery %s", jsonOf(t, d))
		}
		f.clock.Advance(time.Hour)
		jobs = f.claim(t, time.Minute, 1)
		if jobs[0].Delivery.EndpointID != watcher.ID || parsePayload(t, jobs[0].Payload).Data.Object["id"] != gone.ID {
			t.Fatalf("claimed %+v", jobs[0].Delivery)
		}
		// New events are not queued for it; resending to it is refused.
		f.invoice(t, f.m, 1000, nil)
		if n := len(f.deliveries(t, p, gone.ID)); n != 2 {
			t.Fatalf("%d deliveries of the gone endpoint, want 2", n)
		}
		_, err = f.db.ResendEvent(f.ctx, p, f.merchantEvents(t, f.m)[0].ID, gone.ID)
		wantErr(t, err, kassa.KindConflict, "endpoint_disabled")
	})
}

func TestWebhookFailingFiveDaysDisablesEndpoint(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		f := newFixture(t, cfg)
		p := principal(f.m)
		ep := f.endpoint(t, p, "hook", "invoice.created")
		f.invoice(t, f.m, 1000, nil)
		start := f.clock.Now().Truncate(time.Microsecond)
		f.finish(t, f.claim(t, time.Minute, 1)[0], kassa.WebhookResult{StatusCode: 500})

		// Four days and 23 hours later, a new delivery fails too: still enabled.
		f.clock.Advance(kassa.WebhookFailingLimit - time.Hour)
		f.invoice(t, f.m, 1000, nil)
		for _, j := range f.claim(t, time.Minute, 2) {
			f.finish(t, j, kassa.WebhookResult{StatusCode: 500})
		}
		got := f.getEndpoint(t, p, ep.ID)
		if got.Status != kassa.EndpointEnabled || got.FailingSince == nil || !got.FailingSince.Equal(start) {
			t.Fatalf("endpoint after 4d23h of failures: %+v", got)
		}

		f.clock.Advance(time.Hour)
		jobs := f.claim(t, time.Minute, 2) // both retries are due
		f.finish(t, jobs[0], kassa.WebhookResult{StatusCode: 500})
		// Disabling failed the other delivery under its worker's feet.
		err := f.db.FinishWebhookAttempt(f.ctx, jobs[1], attemptOf(f.clock.Now(), kassa.WebhookResult{StatusCode: 200}),
			kassa.WebhookResult{StatusCode: 200})
		wantErr(t, err, kassa.KindConflict, "lease_lost")
		got = f.getEndpoint(t, p, ep.ID)
		if got.Status != kassa.EndpointDisabled || got.DisabledReason == nil || *got.DisabledReason != kassa.DisabledFailing {
			t.Fatalf("endpoint after five days of failures: %+v", got)
		}
		for _, d := range f.deliveries(t, p, ep.ID) {
			if d.Status != kassa.DeliveryFailed {
				t.Fatalf("delivery of a disabled endpoint: %s", jsonOf(t, d))
			}
		}
		f.disabledEvent(t, ep, kassa.DisabledFailing)
		f.clock.Advance(24 * time.Hour)
		f.claim(t, time.Minute, 0)

		// Enabling starts afresh: one more failure does not disable it again.
		_, err = f.db.UpdateWebhookEndpoint(f.ctx, p, ep.ID, kassa.WebhookEndpointInput{Disabled: ptr(false)})
		must(t, err)
		f.invoice(t, f.m, 1000, nil)
		f.finish(t, f.claim(t, time.Minute, 1)[0], kassa.WebhookResult{StatusCode: 500})
		if got := f.getEndpoint(t, p, ep.ID); got.Status != kassa.EndpointEnabled || !got.FailingSince.Equal(f.clock.Now().Truncate(time.Microsecond)) {
			t.Fatalf("re-enabled endpoint after one failure: %+v", got)
		}
	})
}

func TestWebhookSuccessResetsFailingSince(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		f := newFixture(t, cfg)
		p := principal(f.m)
		ep := f.endpoint(t, p, "hook", "invoice.created")
		f.invoice(t, f.m, 1000, nil)
		f.finish(t, f.claim(t, time.Minute, 1)[0], kassa.WebhookResult{StatusCode: 500})
		f.clock.Advance(3 * 24 * time.Hour)
		f.finish(t, f.claim(t, time.Minute, 1)[0], kassa.WebhookResult{StatusCode: 200}) // the retry succeeds
		if got := f.getEndpoint(t, p, ep.ID); got.FailingSince != nil {
			t.Fatalf("failing since %v after a success", got.FailingSince)
		}
		f.invoice(t, f.m, 1000, nil)
		f.finish(t, f.claim(t, time.Minute, 1)[0], kassa.WebhookResult{StatusCode: 500})
		restart := f.clock.Now().Truncate(time.Microsecond)
		// Six days after the first failure, three after the success: still enabled.
		f.clock.Advance(3 * 24 * time.Hour)
		f.finish(t, f.claim(t, time.Minute, 1)[0], kassa.WebhookResult{StatusCode: 500})
		got := f.getEndpoint(t, p, ep.ID)
		if got.Status != kassa.EndpointEnabled || got.FailingSince == nil || !got.FailingSince.Equal(restart) {
			t.Fatalf("endpoint %+v, want enabled and failing since %v", got, restart)
		}
	})
}

// TestWebhookConcurrentClaimers checks that workers claiming at the same time never
// hold the same delivery and together take every due one.
func TestWebhookConcurrentClaimers(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		f := newFixture(t, cfg)
		p := principal(f.m)
		f.endpoint(t, p, "a", "*")
		f.endpoint(t, p, "b", "invoice.created")
		const invoices = 40
		for range invoices {
			f.invoice(t, f.m, 1000, nil)
		}
		const workers = 6
		var (
			mu    sync.Mutex
			owner = map[string]int{}
			errs  []error
			wg    sync.WaitGroup
		)
		for w := range workers {
			wg.Go(func() {
				for {
					jobs, err := f.db.ClaimWebhookJobs(f.ctx, 3, time.Hour)
					mu.Lock()
					if err != nil {
						errs = append(errs, err)
					}
					for _, j := range jobs {
						if prev, ok := owner[j.Delivery.ID]; ok {
							errs = append(errs, fmt.Errorf("delivery %s claimed by workers %d and %d", j.Delivery.ID, prev, w))
						}
						owner[j.Delivery.ID] = w
					}
					mu.Unlock()
					if err != nil || len(jobs) == 0 {
						return
					}
				}
			})
		}
		wg.Wait()
		if len(errs) > 0 {
			t.Fatalf("%d errors, first: %v", len(errs), errs[0])
		}
		if len(owner) != 2*invoices {
			t.Fatalf("claimed %d deliveries, want %d", len(owner), 2*invoices)
		}
		f.claim(t, time.Hour, 0)
	})
}

func TestResendEvent(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		f := newFixture(t, cfg)
		p := principal(f.m)
		invoices := f.endpoint(t, p, "invoices", "invoice.*")
		all := f.endpoint(t, p, "all", "*")
		payments := f.endpoint(t, p, "payments", "invoice_payment.*")
		off := f.endpoint(t, p, "off", "*")
		_, err := f.db.UpdateWebhookEndpoint(f.ctx, p, off.ID, kassa.WebhookEndpointInput{Disabled: ptr(true)})
		must(t, err)
		other := f.merchant(t, "other@example.com")
		foreignEndpoint := f.endpoint(t, principal(other), "foreign", "*")
		f.invoice(t, f.m, 1000, nil)
		f.invoice(t, other, 1000, nil)
		e := f.merchantEvents(t, f.m)[0]
		foreignEvent := f.merchantEvents(t, other)[0]
		for _, j := range f.claim(t, time.Minute, 3) {
			f.finish(t, j, kassa.WebhookResult{StatusCode: 200})
		}
		f.clock.Advance(time.Second)

		ds, err := f.db.ResendEvent(f.ctx, p, e.ID, "")
		must(t, err)
		var to []string
		for _, d := range ds {
			to = append(to, d.EndpointID)
			if d.EventID != e.ID || d.Status != kassa.DeliveryPending || d.Attempts != 0 {
				t.Fatalf("resent delivery %s", jsonOf(t, d))
			}
		}
		slices.Sort(to)
		want := []string{invoices.ID, all.ID}
		slices.Sort(want)
		if fmt.Sprint(to) != fmt.Sprint(want) {
			t.Fatalf("resent to %v, want %v", to, want)
		}
		for _, ep := range []*kassa.WebhookEndpoint{invoices, all} {
			list := f.deliveries(t, p, ep.ID)
			if len(list) != 2 || list[1].Status != kassa.DeliverySucceeded || list[0].Status != kassa.DeliveryPending || list[0].ID == list[1].ID {
				t.Fatalf("%s deliveries %s", ep.Description, jsonOf(t, list))
			}
		}
		jobs := f.claim(t, time.Minute, 2)
		for _, j := range jobs {
			if parsePayload(t, j.Payload).ID != e.ID {
				t.Fatalf("resent payload %s", j.Payload)
			}
		}

		// To one endpoint, whatever it subscribes to.
		ds, err = f.db.ResendEvent(f.ctx, p, e.ID, payments.ID)
		must(t, err)
		if len(ds) != 1 || ds[0].EndpointID != payments.ID || len(f.deliveries(t, p, payments.ID)) != 1 {
			t.Fatalf("resent to payments: %s", jsonOf(t, ds))
		}

		mainnet := kassa.Principal{MerchantID: f.m.ID, Environment: kassa.Mainnet}
		refused := []struct {
			name     string
			p        kassa.Principal
			event    string
			endpoint string
			kind     kassa.ErrorKind
			code     string
		}{
			{"disabled endpoint", p, e.ID, off.ID, kassa.KindConflict, "endpoint_disabled"},
			{"unknown endpoint", p, e.ID, "we_0123456789abcdef0123456789abcdef", kassa.KindInvalid, "resource_missing"},
			{"another merchant's endpoint", p, e.ID, foreignEndpoint.ID, kassa.KindInvalid, "resource_missing"},
			{"another merchant's event", p, foreignEvent.ID, "", kassa.KindNotFound, "resource_missing"},
			{"another environment", mainnet, e.ID, "", kassa.KindNotFound, "resource_missing"},
			{"unknown event", p, kassa.NewEventID(t0), "", kassa.KindNotFound, "resource_missing"},
			{"not an event id", p, "inv_1", "", kassa.KindNotFound, "resource_missing"},
		}
		before := rawCount(t, cfg, "SELECT COUNT(*) FROM webhook_deliveries")
		for _, tt := range refused {
			t.Run(tt.name, func(t *testing.T) {
				ds, err := f.db.ResendEvent(f.ctx, tt.p, tt.event, tt.endpoint)
				wantErr(t, err, tt.kind, tt.code)
				if len(ds) != 0 {
					t.Fatalf("refused resend returned %d deliveries", len(ds))
				}
				if n := rawCount(t, cfg, "SELECT COUNT(*) FROM webhook_deliveries"); n != before {
					t.Fatalf("%d deliveries, want %d", n, before)
				}
			})
		}
		// With no endpoint that wants it, nothing is queued.
		_, err = f.db.UpdateWebhookEndpoint(f.ctx, p, all.ID, kassa.WebhookEndpointInput{Disabled: ptr(true)})
		must(t, err)
		_, err = f.db.UpdateWebhookEndpoint(f.ctx, p, invoices.ID, kassa.WebhookEndpointInput{EnabledEvents: []string{"invoice.paid"}})
		must(t, err)
		ds, err = f.db.ResendEvent(f.ctx, p, e.ID, "")
		must(t, err)
		if len(ds) != 0 {
			t.Fatalf("resent to %d endpoints, want none", len(ds))
		}
	})
}

func TestWebhookDeliveriesList(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		f := newFixture(t, cfg)
		p := principal(f.m)
		ep := f.endpoint(t, p, "hook", "invoice.created")
		otherEp := f.endpoint(t, p, "other", "invoice.created")
		for range 6 {
			f.invoice(t, f.m, 1000, nil)
			f.clock.Advance(time.Second)
		}
		events := f.merchantEvents(t, f.m)
		all := f.deliveries(t, p, ep.ID)
		if len(all) != 6 {
			t.Fatalf("%d deliveries", len(all))
		}
		var ids []string
		for i, d := range all {
			ids = append(ids, d.ID)
			if d.EventID != events[i].ID {
				t.Fatalf("delivery %d is for %s, want %s (newest first)", i, d.EventID, events[i].ID)
			}
		}
		// The oldest succeeds, the next one fails once.
		for _, j := range f.claim(t, time.Minute, 12) {
			switch j.Delivery.ID {
			case ids[5]:
				f.finish(t, j, kassa.WebhookResult{StatusCode: 200})
			case ids[4]:
				f.finish(t, j, kassa.WebhookResult{StatusCode: 500})
			}
		}
		otherIDs := []string{}
		for _, d := range f.deliveries(t, p, otherEp.ID) {
			otherIDs = append(otherIDs, d.ID)
		}

		tests := []struct {
			name string
			f    kassa.DeliveryFilter
			want []string
			more bool
		}{
			{"all", kassa.DeliveryFilter{}, ids, false},
			{"limit", kassa.DeliveryFilter{Limit: 2}, ids[:2], true},
			{"over the maximum", kassa.DeliveryFilter{Limit: 1000}, ids, false},
			{"starting_after", kassa.DeliveryFilter{Limit: 2, StartingAfter: ids[1]}, ids[2:4], true},
			{"starting_after to the end", kassa.DeliveryFilter{Limit: 2, StartingAfter: ids[3]}, ids[4:], false},
			{"ending_before", kassa.DeliveryFilter{Limit: 2, EndingBefore: ids[4]}, ids[2:4], true},
			{"ending_before to the start", kassa.DeliveryFilter{Limit: 2, EndingBefore: ids[2]}, ids[:2], false},
			{"event", kassa.DeliveryFilter{EventID: events[3].ID}, ids[3:4], false},
			{"unknown event", kassa.DeliveryFilter{EventID: kassa.NewEventID(t0)}, []string{}, false},
			{"succeeded", kassa.DeliveryFilter{Status: kassa.DeliverySucceeded}, ids[5:], false},
			{"pending", kassa.DeliveryFilter{Status: kassa.DeliveryPending}, ids[:5], false},
			{"pending with cursor", kassa.DeliveryFilter{Status: kassa.DeliveryPending, Limit: 1, StartingAfter: ids[2]}, ids[3:4], true},
			{"failed", kassa.DeliveryFilter{Status: kassa.DeliveryFailed}, []string{}, false},
			{"event id not UTF-8", kassa.DeliveryFilter{EventID: "evt_\xff"}, []string{}, false},
			{"status not UTF-8", kassa.DeliveryFilter{Status: "\xff"}, []string{}, false},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				tt.f.EndpointID = ep.ID
				got, more, err := f.db.WebhookDeliveries(f.ctx, p, tt.f)
				must(t, err)
				var gotIDs []string
				for _, d := range got {
					gotIDs = append(gotIDs, d.ID)
				}
				if fmt.Sprint(gotIDs) != fmt.Sprint(tt.want) || more != tt.more {
					t.Fatalf("got %v more %v, want %v more %v", gotIDs, more, tt.want, tt.more)
				}
			})
		}
		// Attempts come with their deliveries, oldest first.
		byID := map[string]*kassa.WebhookDelivery{}
		for _, d := range f.deliveries(t, p, ep.ID) {
			byID[d.ID] = d
		}
		if l := byID[ids[5]].Log; len(l) != 1 || !l[0].Succeeded || l[0].StatusCode != 200 || l[0].ResponseExcerpt != "status 200" {
			t.Fatalf("succeeded delivery log %+v", l)
		}
		if l := byID[ids[4]].Log; len(l) != 1 || l[0].Succeeded || l[0].StatusCode != 500 || byID[ids[4]].Status != kassa.DeliveryPending {
			t.Fatalf("failed-once delivery log %+v", l)
		}
		if l := byID[ids[0]].Log; len(l) != 0 {
			t.Fatalf("untried delivery log %+v", l)
		}

		for _, c := range []struct {
			name  string
			f     kassa.DeliveryFilter
			param string
		}{
			{"another endpoint's delivery", kassa.DeliveryFilter{StartingAfter: otherIDs[0]}, "starting_after"},
			{"another endpoint's delivery backward", kassa.DeliveryFilter{EndingBefore: otherIDs[0]}, "ending_before"},
			{"unknown", kassa.DeliveryFilter{StartingAfter: "whd_0123"}, "starting_after"},
			{"garbage", kassa.DeliveryFilter{EndingBefore: "\xff"}, "ending_before"},
			{"both", kassa.DeliveryFilter{StartingAfter: ids[0], EndingBefore: ids[3]}, "ending_before"},
		} {
			t.Run("bad cursor "+c.name, func(t *testing.T) {
				c.f.EndpointID = ep.ID
				_, _, err := f.db.WebhookDeliveries(f.ctx, p, c.f)
				wantErr(t, err, kassa.KindInvalid, "invalid_cursor")
				if e := kassa.AsError(err); e.Param != c.param {
					t.Fatalf("param %q, want %q", e.Param, c.param)
				}
			})
		}
	})
}
