package store_test

import (
	"strings"
	"testing"
	"time"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/delivery"
	"github.com/kassapay/kassa/store"
	"github.com/kassapay/kassa/store/storetest"
)

func TestWebhookEndpointDisableStopsDeliveries(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		f := newFixture(t, cfg)
		p := principal(f.m)
		ep := f.endpoint(t, p, "hook", "*")
		f.invoice(t, f.m, 1000, nil)
		// A failed attempt starts the failure record.
		jobs := f.claim(t, time.Minute, 1)
		f.finish(t, jobs[0], delivery.Result{StatusCode: 500})
		f.invoice(t, f.m, 1000, nil)
		if got := f.getEndpoint(t, p, ep.ID); got.FailingSince == nil {
			t.Fatal("no failing_since after a failed attempt")
		}

		_, err := f.db.UpdateWebhookEndpoint(f.ctx, p, ep.ID, kassa.WebhookEndpointInput{Disabled: ptr(true)})
		must(t, err)
		for _, d := range f.deliveries(t, p, ep.ID) {
			if d.Status != kassa.DeliveryFailed || d.NextAttemptAt != nil {
				t.Fatalf("delivery after disabling: %s", jsonOf(t, d))
			}
		}
		f.invoice(t, f.m, 1000, nil) // no delivery while disabled
		f.clock.Advance(time.Hour)
		if jobs := f.claim(t, time.Minute, 0); len(jobs) != 0 {
			t.Fatalf("claimed %d jobs of a disabled endpoint", len(jobs))
		}
		if n := len(f.deliveries(t, p, ep.ID)); n != 2 {
			t.Fatalf("%d deliveries, want 2", n)
		}

		got, err := f.db.UpdateWebhookEndpoint(f.ctx, p, ep.ID, kassa.WebhookEndpointInput{Disabled: ptr(false)})
		must(t, err)
		if got.Status != kassa.EndpointEnabled || got.FailingSince != nil || f.getEndpoint(t, p, ep.ID).FailingSince != nil {
			t.Fatalf("enabled %+v", got)
		}
		inv := f.invoice(t, f.m, 1000, nil)
		jobs = f.claim(t, time.Minute, 1)
		if !strings.Contains(string(jobs[0].Payload), inv.ID) {
			t.Fatalf("job after enabling is about another event: %s", jobs[0].Payload)
		}
	})
}

func (f *fixture) getEndpoint(t *testing.T, p kassa.Principal, id string) *kassa.WebhookEndpoint {
	t.Helper()
	ep, err := f.db.WebhookEndpoint(f.ctx, p, id)
	must(t, err)
	return ep
}

func TestWebhookEndpointDelete(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		f := newFixture(t, cfg)
		p := principal(f.m)
		gone := f.endpoint(t, p, "gone", "*")
		kept := f.endpoint(t, p, "kept", "*")
		f.invoice(t, f.m, 1000, nil)
		f.invoice(t, f.m, 1000, nil)
		for _, j := range f.claim(t, time.Minute, 4) {
			f.finish(t, j, delivery.Result{StatusCode: 500})
		}
		count := func(table, id string) int {
			t.Helper()
			if table == "webhook_attempts" {
				return rawCount(t, cfg, "SELECT COUNT(*) FROM webhook_attempts a JOIN webhook_deliveries d ON d.id = a.delivery_id WHERE d.endpoint_id = $1", id)
			}
			return rawCount(t, cfg, "SELECT COUNT(*) FROM webhook_deliveries WHERE endpoint_id = $1", id)
		}
		allAttempts := rawCount(t, cfg, "SELECT COUNT(*) FROM webhook_attempts")
		if count("webhook_deliveries", gone.ID) != 2 || count("webhook_attempts", gone.ID) != 2 || allAttempts != 4 {
			t.Fatal("setup: deliveries or attempts missing")
		}

		must(t, f.db.DeleteWebhookEndpoint(f.ctx, p, gone.ID))
		_, err := f.db.WebhookEndpoint(f.ctx, p, gone.ID)
		wantErr(t, err, kassa.KindNotFound, "resource_missing")
		wantErr(t, f.db.DeleteWebhookEndpoint(f.ctx, p, gone.ID), kassa.KindNotFound, "resource_missing")
		if n := rawCount(t, cfg, "SELECT COUNT(*) FROM webhook_deliveries WHERE endpoint_id = $1", gone.ID); n != 0 {
			t.Fatalf("%d deliveries of the deleted endpoint left", n)
		}
		if n := rawCount(t, cfg, "SELECT COUNT(*) FROM webhook_attempts"); n != 2 {
			t.Fatalf("%d attempts left, want the kept endpoint's 2", n)
		}
		if n := len(f.deliveries(t, p, kept.ID)); n != 2 {
			t.Fatalf("kept endpoint has %d deliveries, want 2", n)
		}
		// Events stay: they belong to the merchant, not the endpoint.
		if n := len(f.merchantEvents(t, f.m)); n != 2 {
			t.Fatalf("%d events after delete, want 2", n)
		}
		// Only the kept endpoint's retries are due.
		f.clock.Advance(time.Minute)
		for _, j := range f.claim(t, time.Minute, 2) {
			if j.Delivery.EndpointID != kept.ID {
				t.Fatalf("claimed a delivery of %s", j.Delivery.EndpointID)
			}
		}
	})
}
