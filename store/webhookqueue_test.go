package store_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/delivery"
	"github.com/kassapay/kassa/store"
	"github.com/kassapay/kassa/store/storetest"
)

// claim claims due jobs (up to 100) for lease and checks that there are want.
func (f *fixture) claim(t *testing.T, lease time.Duration, want int) []*delivery.Job {
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
func (f *fixture) finish(t *testing.T, job *delivery.Job, res delivery.Result) {
	t.Helper()
	must(t, f.db.FinishWebhookAttempt(f.ctx, job, attemptOf(f.clock.Now(), res), res))
}

func attemptOf(at time.Time, res delivery.Result) kassa.WebhookAttempt {
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
		err := f.db.FinishWebhookAttempt(f.ctx, j, attemptOf(f.clock.Now(), delivery.Result{StatusCode: 200}), delivery.Result{StatusCode: 200})
		wantErr(t, err, kassa.KindConflict, "lease_lost")
		if d := f.delivery(t, p, ep.ID); d.Status != kassa.DeliveryPending || d.Attempts != 0 || len(d.Log) != 0 {
			t.Fatalf("a refused finish changed the delivery: %s", jsonOf(t, d))
		}
		forged := *again
		forged.Lease = "not-the-lease"
		err = f.db.FinishWebhookAttempt(f.ctx, &forged, attemptOf(f.clock.Now(), delivery.Result{StatusCode: 200}), delivery.Result{StatusCode: 200})
		wantErr(t, err, kassa.KindConflict, "lease_lost")

		at := f.clock.Now()
		must(t, f.db.FinishWebhookAttempt(f.ctx, again, kassa.WebhookAttempt{At: at, StatusCode: 204, LatencyMS: 87,
			ResponseExcerpt: "thanks \x00é", Succeeded: true}, delivery.Result{StatusCode: 204}))
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
		err = f.db.FinishWebhookAttempt(f.ctx, again, attemptOf(f.clock.Now(), delivery.Result{StatusCode: 200}), delivery.Result{StatusCode: 200})
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
		var sent []*delivery.Job
		for range 4 { // one delivery a claim: broken's two are held, ok's is sent
			jobs, err := f.db.ClaimWebhookJobs(f.ctx, 1, time.Minute)
			must(t, err)
			sent = append(sent, jobs...)
		}
		if len(sent) != 1 || sent[0].Delivery.EndpointID != ok.ID {
			t.Fatalf("claims of one sent %d jobs, want ok's delivery alone", len(sent))
		}
		f.finish(t, sent[0], delivery.Result{StatusCode: 200})
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
