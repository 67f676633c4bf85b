package store_test

import (
	"strings"
	"testing"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/delivery"
	"github.com/kassapay/kassa/endpoints"
	"github.com/kassapay/kassa/invoicing"
	"github.com/kassapay/kassa/store"
	"github.com/kassapay/kassa/store/storetest"
)

// TestCreateInvoiceDeliveries checks which endpoints an invoice create queues a
// delivery for, with and without an idempotency key (PostgreSQL's create has a path
// of its own, pgcreatebatch.go): every enabled endpoint of the merchant's environment
// whose patterns match invoice.created, and no other. A create under a live key
// writes no invoice, event or delivery.
func TestCreateInvoiceDeliveries(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		f := newFixture(t, cfg)
		p := principal(f.m)
		endpoint := func(events []string, disabled bool) *kassa.WebhookEndpoint {
			t.Helper()
			ep, err := endpoints.Over(f.db, delivery.Targets{}).CreateWebhookEndpoint(f.ctx, p, kassa.WebhookEndpointInput{
				URL: ptr("https://example.com/" + strings.Join(events, "-")), EnabledEvents: events})
			must(t, err)
			if disabled {
				ep, err = f.db.UpdateWebhookEndpoint(f.ctx, p, ep.ID, kassa.WebhookEndpointInput{Disabled: ptr(true)})
				must(t, err)
			}
			return ep
		}
		wants := map[*kassa.WebhookEndpoint]bool{
			endpoint([]string{"*"}, false):                                    true,
			endpoint([]string{"invoice.*"}, false):                            true,
			endpoint([]string{"invoice_payment.*", "invoice.created"}, false): true,
			endpoint([]string{"invoice.paid"}, false):                         false,
			endpoint([]string{"invoice_payment.*", "commerce.*"}, false):      false,
			endpoint([]string{"*"}, true):                                     false,
		}
		other := f.merchant(t, "other@example.com")
		_, err := endpoints.Over(f.db, delivery.Targets{}).CreateWebhookEndpoint(f.ctx, principal(other), kassa.WebhookEndpointInput{
			URL: ptr("https://example.com/other"), EnabledEvents: []string{"*"}})
		must(t, err)

		render := func(kassa.CreatedInvoice) (int, []byte, error) { return 201, []byte("{}"), nil }
		keyed := func() *kassa.SavedResponse[kassa.CreatedInvoice] {
			return &kassa.SavedResponse[kassa.CreatedInvoice]{Scope: scope(f, "deliveries"), Fingerprint: "fp", Render: render}
		}
		ids := map[string]bool{}
		for _, save := range []*kassa.SavedResponse[kassa.CreatedInvoice]{nil, keyed()} {
			inv, _, err := invoicing.Over(f.db).CreateInvoice(f.ctx, p, kassa.InvoiceCreate{Amount: 1000}, save)
			must(t, err)
			es := f.merchantEvents(t, f.m)
			if len(es) == 0 || es[0].Type != kassa.EventInvoiceCreated || !strings.Contains(string(es[0].Data), `"`+inv.ID+`"`) {
				t.Fatalf("keyed %v: latest event %s, want invoice.created of %s", save != nil, jsonOf(t, es[:min(1, len(es))]), inv.ID)
			}
			for ep, want := range wants {
				ds, _, err := f.db.WebhookDeliveries(f.ctx, p, kassa.DeliveryFilter{EndpointID: ep.ID, EventID: es[0].ID})
				must(t, err)
				if got := len(ds) == 1; got != want || len(ds) > 1 {
					t.Errorf("keyed %v: endpoint %v (disabled %v): %d deliveries, want %v", save != nil, ep.EnabledEvents, ep.Status != kassa.EndpointEnabled, len(ds), want)
					continue
				}
				for _, d := range ds {
					if d.Status != kassa.DeliveryPending || d.EventType != kassa.EventInvoiceCreated || len(d.ID) != len("whd_")+32 || ids[d.ID] {
						t.Errorf("delivery %s", jsonOf(t, d))
					}
					ids[d.ID] = true
				}
			}
		}
		if len(ids) != 6 {
			t.Fatalf("%d distinct deliveries, want 6", len(ids))
		}

		// The key is live: the second create under it writes nothing.
		before := len(f.merchantEvents(t, f.m))
		_, _, err = invoicing.Over(f.db).CreateInvoice(f.ctx, p, kassa.InvoiceCreate{Amount: 1000}, keyed())
		wantErr(t, err, kassa.KindIdempotency, "idempotency_key_in_use")
		if after := len(f.merchantEvents(t, f.m)); after != before {
			t.Fatalf("%d events after a create under a live key, want %d", after, before)
		}
		invs, _, err := f.db.Invoices(f.ctx, kassa.InvoiceFilter{MerchantID: f.m.ID, Limit: 10})
		must(t, err)
		if len(invs) != 2 {
			t.Fatalf("%d invoices, want 2", len(invs))
		}
	})
}
