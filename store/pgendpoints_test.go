package store_test

import (
	"errors"
	"testing"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/delivery"
	"github.com/kassapay/kassa/endpoints"
	"github.com/kassapay/kassa/invoicing"
	"github.com/kassapay/kassa/store"
	"github.com/kassapay/kassa/store/storetest"
)

// TestPostgresCreateEndpointsChecked: once PostgreSQL's create writer has read a
// merchant environment's webhook endpoints, its batches go in one round trip with
// the deliveries to the endpoints it remembers; an endpoint added, disabled or
// changed or deleted since (by any instance) fails the transaction's check, and the batch is
// written again after a fresh read, so every create queues exactly the deliveries
// a read would have given.
func TestPostgresCreateEndpointsChecked(t *testing.T) {
	cfg := storetest.PostgresConfig(t)
	f := newFixture(t, cfg)
	p := principal(f.m)
	a, err := endpoints.Over(f.db, delivery.Targets{}).CreateWebhookEndpoint(f.ctx, p, kassa.WebhookEndpointInput{
		URL: ptr("https://example.com/a"), EnabledEvents: []string{"invoice.created"}})
	must(t, err)
	var b *kassa.WebhookEndpoint
	deliveries := func(ep *kassa.WebhookEndpoint) int {
		t.Helper()
		if ep == nil {
			return 0
		}
		ds, _, err := f.db.WebhookDeliveries(f.ctx, p, kassa.DeliveryFilter{EndpointID: ep.ID, Limit: 100})
		must(t, err)
		return len(ds)
	}
	create := func() (*kassa.Invoice, error) {
		inv, _, err := invoicing.Over(f.db).CreateInvoice(f.ctx, p, kassa.InvoiceCreate{Amount: 1000}, nil)
		return inv, err
	}
	for _, step := range []struct {
		name           string
		change         func(t *testing.T)
		wantA, wantB   int
		oneTrip, stale int64 // added by the step's batch
	}{
		{"first batch reads the endpoints", func(*testing.T) {}, 2, 0, 0, 0},
		{"next batch in one round trip", func(*testing.T) {}, 4, 0, 1, 0},
		{"endpoint added", func(t *testing.T) {
			b, err = endpoints.Over(f.db, delivery.Targets{}).CreateWebhookEndpoint(f.ctx, p, kassa.WebhookEndpointInput{
				URL: ptr("https://example.com/b"), EnabledEvents: []string{"invoice.*"}})
			must(t, err)
		}, 6, 2, 0, 1},
		{"endpoint disabled", func(t *testing.T) {
			_, err := f.db.UpdateWebhookEndpoint(f.ctx, p, a.ID, kassa.WebhookEndpointInput{Disabled: ptr(true)})
			must(t, err)
		}, 6, 4, 0, 1},
		{"endpoint's events changed", func(t *testing.T) {
			_, err := f.db.UpdateWebhookEndpoint(f.ctx, p, b.ID, kassa.WebhookEndpointInput{EnabledEvents: []string{"invoice.paid"}})
			must(t, err)
		}, 6, 4, 0, 1},
		{"unchanged again", func(*testing.T) {}, 6, 4, 1, 0},
		{"endpoint enabled again", func(t *testing.T) {
			_, err := f.db.UpdateWebhookEndpoint(f.ctx, p, a.ID, kassa.WebhookEndpointInput{Disabled: ptr(false)})
			must(t, err)
		}, 8, 4, 0, 1},
		{"endpoint deleted", func(t *testing.T) {
			must(t, f.db.DeleteWebhookEndpoint(f.ctx, p, b.ID))
			b = nil
		}, 10, 0, 0, 1},
	} {
		t.Run(step.name, func(t *testing.T) {
			step.change(t)
			oneTrip0, stale0 := store.CreateTrips(t, f.db)
			_, errs := createAll(t, f, store.HoldCreates(t, f.db), []func() (*kassa.Invoice, error){create, create})
			for _, err := range errs {
				must(t, err)
			}
			oneTrip, stale := store.CreateTrips(t, f.db)
			if oneTrip-oneTrip0 != step.oneTrip || stale-stale0 != step.stale {
				t.Errorf("batches in one round trip +%d, with changed endpoints +%d; want +%d, +%d",
					oneTrip-oneTrip0, stale-stale0, step.oneTrip, step.stale)
			}
			if got, gotB := deliveries(a), deliveries(b); got != step.wantA || gotB != step.wantB {
				t.Fatalf("deliveries to a: %d, to b: %d; want %d, %d", got, gotB, step.wantA, step.wantB)
			}
		})
	}
}

// TestPostgresCreateStaleEndpointsAndLiveKey: a batch across two merchants, one of
// whose endpoints changed since the writer read them, and one of whose creates
// meets a live claim on its key: the check fails first, the batch goes again with
// a fresh read, the live key splits it, and only that create fails; the others
// queue their deliveries to the endpoints as they now are.
func TestPostgresCreateStaleEndpointsAndLiveKey(t *testing.T) {
	cfg := storetest.PostgresConfig(t)
	f := newFixture(t, cfg)
	other := f.merchant(t, "other@example.com")
	p := principal(f.m)
	a, err := endpoints.Over(f.db, delivery.Targets{}).CreateWebhookEndpoint(f.ctx, p, kassa.WebhookEndpointInput{
		URL: ptr("https://example.com/a"), EnabledEvents: []string{"invoice.created"}})
	must(t, err)
	create := func(m *kassa.Merchant, key string) func() (*kassa.Invoice, error) { return keyedCreate(f, m, key) }
	// Both merchants' endpoints are read and remembered.
	_, errs := createAll(t, f, store.HoldCreates(t, f.db), []func() (*kassa.Invoice, error){create(f.m, ""), create(other, "")})
	for _, err := range errs {
		must(t, err)
	}
	b, err := endpoints.Over(f.db, delivery.Targets{}).CreateWebhookEndpoint(f.ctx, p, kassa.WebhookEndpointInput{
		URL: ptr("https://example.com/b"), EnabledEvents: []string{"invoice.*"}})
	must(t, err)
	claim(t, f, scope(f, "held"), "fp-other")
	_, stale0 := store.CreateTrips(t, f.db)

	invs, errs := createAll(t, f, store.HoldCreates(t, f.db), []func() (*kassa.Invoice, error){
		create(f.m, "held"), create(f.m, "fresh"), create(other, "")})
	if !errors.Is(errs[0], kassa.ErrClaimLost) || errs[1] != nil || errs[2] != nil || invs[1] == nil || invs[2] == nil {
		t.Fatalf("errors %v; want ErrClaimLost for the held key only", errs)
	}
	if _, stale := store.CreateTrips(t, f.db); stale-stale0 != 1 {
		t.Errorf("%d batches found their endpoints changed, want 1", stale-stale0)
	}
	for _, c := range []struct {
		ep   *kassa.WebhookEndpoint
		want int
	}{{a, 2}, {b, 1}} {
		ds, _, err := f.db.WebhookDeliveries(f.ctx, p, kassa.DeliveryFilter{EndpointID: c.ep.ID, Limit: 100})
		must(t, err)
		if len(ds) != c.want {
			t.Errorf("endpoint %s: %d deliveries, want %d", c.ep.URL, len(ds), c.want)
		}
	}
}
