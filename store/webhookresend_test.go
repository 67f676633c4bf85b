package store_test

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/delivery"
	"github.com/kassapay/kassa/endpoints"
	"github.com/kassapay/kassa/store"
	"github.com/kassapay/kassa/store/storetest"
)

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
			f.finish(t, j, delivery.Result{StatusCode: 200})
		}
		f.clock.Advance(time.Second)

		ds, err := endpoints.Over(f.db, delivery.Targets{}).ResendEvent(f.ctx, p, e.ID, "")
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
		ds, err = endpoints.Over(f.db, delivery.Targets{}).ResendEvent(f.ctx, p, e.ID, payments.ID)
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
				ds, err := endpoints.Over(f.db, delivery.Targets{}).ResendEvent(f.ctx, tt.p, tt.event, tt.endpoint)
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
		ds, err = endpoints.Over(f.db, delivery.Targets{}).ResendEvent(f.ctx, p, e.ID, "")
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
				f.finish(t, j, delivery.Result{StatusCode: 200})
			case ids[4]:
				f.finish(t, j, delivery.Result{StatusCode: 500})
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
