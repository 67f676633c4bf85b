package store_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/delivery"
	"github.com/kassapay/kassa/endpoints"
	"github.com/kassapay/kassa/store"
	"github.com/kassapay/kassa/store/storetest"
)

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
		f.finish(t, jobs[0], delivery.Result{StatusCode: 410})

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
		_, err = endpoints.Over(f.db, delivery.Targets{}).ResendEvent(f.ctx, p, f.merchantEvents(t, f.m)[0].ID, gone.ID)
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
		f.finish(t, f.claim(t, time.Minute, 1)[0], delivery.Result{StatusCode: 500})

		// Four days and 23 hours later, a new delivery fails too: still enabled.
		f.clock.Advance(kassa.WebhookFailingLimit - time.Hour)
		f.invoice(t, f.m, 1000, nil)
		for _, j := range f.claim(t, time.Minute, 2) {
			f.finish(t, j, delivery.Result{StatusCode: 500})
		}
		got := f.getEndpoint(t, p, ep.ID)
		if got.Status != kassa.EndpointEnabled || got.FailingSince == nil || !got.FailingSince.Equal(start) {
			t.Fatalf("endpoint after 4d23h of failures: %+v", got)
		}

		f.clock.Advance(time.Hour)
		jobs := f.claim(t, time.Minute, 2) // both retries are due
		f.finish(t, jobs[0], delivery.Result{StatusCode: 500})
		// Disabling failed the other delivery under its worker's feet.
		err := f.db.FinishWebhookAttempt(f.ctx, jobs[1], attemptOf(f.clock.Now(), delivery.Result{StatusCode: 200}),
			delivery.Result{StatusCode: 200})
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
		f.finish(t, f.claim(t, time.Minute, 1)[0], delivery.Result{StatusCode: 500})
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
		f.finish(t, f.claim(t, time.Minute, 1)[0], delivery.Result{StatusCode: 500})
		f.clock.Advance(3 * 24 * time.Hour)
		f.finish(t, f.claim(t, time.Minute, 1)[0], delivery.Result{StatusCode: 200}) // the retry succeeds
		if got := f.getEndpoint(t, p, ep.ID); got.FailingSince != nil {
			t.Fatalf("failing since %v after a success", got.FailingSince)
		}
		f.invoice(t, f.m, 1000, nil)
		f.finish(t, f.claim(t, time.Minute, 1)[0], delivery.Result{StatusCode: 500})
		restart := f.clock.Now().Truncate(time.Microsecond)
		// Six days after the first failure, three after the success: still enabled.
		f.clock.Advance(3 * 24 * time.Hour)
		f.finish(t, f.claim(t, time.Minute, 1)[0], delivery.Result{StatusCode: 500})
		got := f.getEndpoint(t, p, ep.ID)
		if got.Status != kassa.EndpointEnabled || got.FailingSince == nil || !got.FailingSince.Equal(restart) {
			t.Fatalf("endpoint %+v, want enabled and failing since %v", got, restart)
		}
	})
}
