package store_test

import (
	"slices"
	"testing"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/delivery"
	"github.com/kassapay/kassa/endpoints"
	"github.com/kassapay/kassa/invoicing"
	"github.com/kassapay/kassa/store"
	"github.com/kassapay/kassa/store/storetest"
)

// TestEndpointChangesReachCreates: every change to a merchant's webhook endpoints
// shows in the deliveries of the next invoice create, however many creates read
// the endpoints before (SQLite's writer caches them: endpointcache.go).
func TestEndpointChangesReachCreates(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		f := newFixture(t, cfg)
		p := principal(f.m)
		var all []string // every endpoint created, deleted ones too
		// targets creates an invoice and returns the endpoints its event went to.
		targets := func() []string {
			t.Helper()
			_, _, err := invoicing.Over(f.db).CreateInvoice(f.ctx, p, kassa.InvoiceCreate{Amount: 1000}, nil)
			must(t, err)
			es := f.merchantEvents(t, f.m)
			var out []string
			for _, id := range all {
				ds, _, err := f.db.WebhookDeliveries(f.ctx, p, kassa.DeliveryFilter{EndpointID: id, EventID: es[0].ID})
				if kassa.AsError(err).Kind == kassa.KindNotFound {
					continue // deleted
				}
				must(t, err)
				for _, d := range ds {
					out = append(out, d.EndpointID)
				}
			}
			slices.Sort(out)
			return out
		}
		create := func(events ...string) string {
			t.Helper()
			ep, err := endpoints.Over(f.db, delivery.Targets{}).CreateWebhookEndpoint(f.ctx, p, kassa.WebhookEndpointInput{
				URL: ptr("https://example.com/hook"), EnabledEvents: events})
			must(t, err)
			all = append(all, ep.ID)
			return ep.ID
		}
		update := func(id string, in kassa.WebhookEndpointInput) {
			t.Helper()
			_, err := f.db.UpdateWebhookEndpoint(f.ctx, p, id, in)
			must(t, err)
		}
		check := func(step string, want ...string) {
			t.Helper()
			slices.Sort(want)
			for range 2 { // the second create reads what the first did
				if got := targets(); !slices.Equal(got, want) {
					t.Fatalf("%s: deliveries to %v, want %v", step, got, want)
				}
			}
		}

		check("no endpoint")
		a := create("invoice.created")
		check("one created", a)
		b := create("*")
		check("two", a, b)
		update(a, kassa.WebhookEndpointInput{Disabled: ptr(true)})
		check("a disabled", b)
		update(a, kassa.WebhookEndpointInput{Disabled: ptr(false)})
		check("a enabled again", a, b)
		update(b, kassa.WebhookEndpointInput{EnabledEvents: []string{"invoice.paid"}})
		check("b wants another type", a)
		_, err := f.db.RotateWebhookSecret(f.ctx, p, a)
		must(t, err)
		check("a's secret rotated", a)
		must(t, f.db.DeleteWebhookEndpoint(f.ctx, p, a))
		check("a deleted")
	})
}
