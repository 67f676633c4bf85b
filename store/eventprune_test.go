package store_test

import (
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/delivery"
	"github.com/kassapay/kassa/endpoints"
	"github.com/kassapay/kassa/invoicing"
	"github.com/kassapay/kassa/store"
	"github.com/kassapay/kassa/store/storetest"
)

func TestPruneEvents(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		f := newFixture(t, cfg)
		p := principal(f.m)
		ep, err := endpoints.Over(f.db, delivery.Targets{}).CreateWebhookEndpoint(f.ctx, p, kassa.WebhookEndpointInput{
			URL: ptr("https://example.com/hook"), EnabledEvents: []string{"*"}})
		must(t, err)
		old := f.invoice(t, f.m, 1000, nil)
		// The old delivery has an attempt logged.
		jobs, err := f.db.ClaimWebhookJobs(f.ctx, 10, time.Minute)
		must(t, err)
		if len(jobs) != 1 {
			t.Fatalf("%d jobs", len(jobs))
		}
		must(t, f.db.FinishWebhookAttempt(f.ctx, jobs[0], kassa.WebhookAttempt{At: f.clock.Now(), StatusCode: 200, Succeeded: true},
			delivery.Result{StatusCode: 200}))

		f.clock.Advance(kassa.EventRetention)
		edge := f.invoice(t, f.m, 1000, nil) // exactly at the cutoff: kept
		f.clock.Advance(24 * time.Hour)
		recent := f.invoice(t, f.m, 1000, nil)
		cutoff := f.clock.Now().Add(-24 * time.Hour) // when edge was made

		n, err := f.db.PruneEvents(f.ctx, cutoff)
		must(t, err)
		if n != 1 {
			t.Fatalf("pruned %d events, want 1", n)
		}
		es := f.merchantEvents(t, f.m)
		if len(es) != 2 || !json.Valid(es[0].Data) || !containsObject(t, es, recent.ID) || !containsObject(t, es, edge.ID) ||
			containsObject(t, es, old.ID) {
			t.Fatalf("events left: %s", jsonOf(t, es))
		}
		ds, _, err := f.db.WebhookDeliveries(f.ctx, p, kassa.DeliveryFilter{EndpointID: ep.ID})
		must(t, err)
		if len(ds) != 2 || ds[0].EventID != es[0].ID || ds[1].EventID != es[1].ID {
			t.Fatalf("deliveries left: %s", jsonOf(t, ds))
		}
		if n := rawCount(t, cfg, "SELECT COUNT(*) FROM webhook_attempts"); n != 0 {
			t.Fatalf("%d attempts left of the pruned delivery", n)
		}
		// The invoice itself stays.
		if _, err := f.db.Invoice(f.ctx, f.m.ID, old.ID); err != nil {
			t.Fatalf("pruning took the invoice: %v", err)
		}
		if n, err := f.db.PruneEvents(f.ctx, cutoff); err != nil || n != 0 {
			t.Fatalf("second prune: %d, %v", n, err)
		}
	})
}

// containsObject reports whether one of the events is about the object with id.
func containsObject(t *testing.T, es []*kassa.Event, id string) bool {
	t.Helper()
	for _, e := range es {
		var obj struct{ ID string }
		must(t, json.Unmarshal(e.Data, &obj))
		if obj.ID == id {
			return true
		}
	}
	return false
}

// TestPruneEventsWindows prunes more events than one window holds, behind an
// event whose clock ran ahead (a low seq, a recent created_at): every old event
// goes, the young ones stay, and a second run finds nothing.
func TestPruneEventsWindows(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		f := newFixture(t, cfg)
		young := t0.Add(10 * 24 * time.Hour)
		f.clock.Set(young)
		ahead := f.invoice(t, f.m, 1000, nil) // first by seq, young by its clock
		f.clock.Set(t0)
		const old = 4100 // two windows of 2,000 and part of a third
		var wg sync.WaitGroup
		for w := range 8 {
			wg.Go(func() {
				for range old / 8 {
					if _, _, err := invoicing.Over(f.db).CreateInvoice(f.ctx, principal(f.m), kassa.InvoiceCreate{Amount: 1000}, nil); err != nil {
						t.Error(w, err)
						return
					}
				}
			})
		}
		wg.Wait()
		made := old / 8 * 8
		f.clock.Set(young)
		last := f.invoice(t, f.m, 1000, nil)

		n, err := f.db.PruneEvents(f.ctx, t0.Add(24*time.Hour))
		must(t, err)
		if n != int64(made) {
			t.Fatalf("pruned %d events, want %d", n, made)
		}
		es := f.merchantEvents(t, f.m)
		if len(es) != 2 || !containsObject(t, es, ahead.ID) || !containsObject(t, es, last.ID) {
			t.Fatalf("events left: %s", jsonOf(t, es))
		}
		if n, err := f.db.PruneEvents(f.ctx, t0.Add(24*time.Hour)); err != nil || n != 0 {
			t.Fatalf("second prune: %d, %v", n, err)
		}
	})
}
