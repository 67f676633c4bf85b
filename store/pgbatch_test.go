package store_test

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/delivery"
	"github.com/kassapay/kassa/endpoints"
	"github.com/kassapay/kassa/invoicing"
	"github.com/kassapay/kassa/store"
	"github.com/kassapay/kassa/store/storetest"
)

// createAll runs creates concurrently on a held batcher, releases it once all are
// queued, and returns each create's invoice (nil on failure) and error, in order.
func createAll(t *testing.T, f *fixture, release func(int), creates []func() (*kassa.Invoice, error)) ([]*kassa.Invoice, []error) {
	t.Helper()
	invs, errs := make([]*kassa.Invoice, len(creates)), make([]error, len(creates))
	var wg sync.WaitGroup
	for i, create := range creates {
		wg.Go(func() { invs[i], errs[i] = create() })
	}
	release(len(creates))
	wg.Wait()
	return invs, errs
}

// transactions counts the distinct PostgreSQL transactions that wrote the
// invoice.created events of invs.
func transactions(t *testing.T, cfg store.Config, invs []*kassa.Invoice) int {
	t.Helper()
	ids := make([]string, 0, len(invs))
	for _, inv := range invs {
		if inv != nil {
			ids = append(ids, inv.ID)
		}
	}
	var n int
	must(t, storetest.RawDB(t, cfg).QueryRow(
		"SELECT count(DISTINCT tx) FROM events WHERE type = 'invoice.created' AND object_id = ANY($1)", ids).Scan(&n))
	return n
}

// TestPostgresCreateBatch: invoice creates queued together on PostgreSQL are
// written in one transaction, each with its event, its deliveries and its
// idempotency record, across merchants; a batch one of whose creates meets a live
// key, or a refused statement, is run one create at a time, so only that create
// fails.
func TestPostgresCreateBatch(t *testing.T) {
	cfg := storetest.PostgresConfig(t)
	f := newFixture(t, cfg)
	other := f.merchant(t, "other@example.com")
	ep, err := endpoints.Over(f.db, delivery.Targets{}).CreateWebhookEndpoint(f.ctx, principal(f.m), kassa.WebhookEndpointInput{
		URL: ptr("https://example.com/hook"), EnabledEvents: []string{"invoice.created"}})
	must(t, err)
	create := func(m *kassa.Merchant, key string) func() (*kassa.Invoice, error) { return keyedCreate(f, m, key) }

	t.Run("one transaction", func(t *testing.T) {
		invs, errs := createAll(t, f, store.HoldCreates(t, f.db), []func() (*kassa.Invoice, error){
			create(f.m, "a"), create(f.m, "b"), create(f.m, ""), create(other, "a"), create(other, ""),
		})
		for i, err := range errs {
			must(t, err)
			if invs[i] == nil {
				t.Fatalf("create %d: no invoice", i)
			}
		}
		if n := transactions(t, cfg, invs); n != 1 {
			t.Fatalf("the batch's events were written by %d transactions, want 1", n)
		}
		for i, m := range []*kassa.Merchant{f.m, f.m, f.m, other, other} {
			got, err := f.db.Invoice(f.ctx, m.ID, invs[i].ID)
			must(t, err)
			if got.MerchantID != m.ID || got.Amount != 1000 {
				t.Errorf("invoice %d: %s", i, jsonOf(t, got))
			}
		}
		ds, _, err := f.db.WebhookDeliveries(f.ctx, principal(f.m), kassa.DeliveryFilter{EndpointID: ep.ID})
		must(t, err)
		if len(ds) != 3 {
			t.Errorf("%d deliveries to the endpoint, want 3 (one per create of its merchant)", len(ds))
		}
		for i, key := range []string{"a", "b", "", "a"} {
			if key == "" {
				continue
			}
			m := f.m
			if i == 3 {
				m = other
			}
			rec, err := f.db.IdempotencyRecord(f.ctx, kassa.IdempotencyScope{MerchantID: m.ID, Environment: kassa.Devnet,
				Route: "POST /api/v1/invoices", Key: key})
			must(t, err)
			if rec == nil || !rec.Done || rec.StatusCode != 201 || string(rec.Body) != `{"id":"`+invs[i].ID+`"}` || rec.Fingerprint != "fp-"+key {
				t.Errorf("create %d: idempotency record %+v", i, rec)
			}
		}
	})

	for _, tc := range []struct {
		name  string
		setup func(t *testing.T) // before the batch
	}{
		// Two creates of one batch under one key: PostgreSQL refuses the
		// statement that would write the key twice.
		{"one key twice", func(*testing.T) {}},
		// A live claim under the key (a request in flight elsewhere).
		{"live key", func(t *testing.T) { claim(t, f, scope(f, "twice-live key"), "fp-other") }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.setup(t)
			key := "twice-" + tc.name
			creates := []func() (*kassa.Invoice, error){create(f.m, key), create(f.m, "alone-"+tc.name), create(f.m, "")}
			if tc.name == "one key twice" {
				creates = append(creates, create(f.m, key))
			}
			invs, errs := createAll(t, f, store.HoldCreates(t, f.db), creates)
			var lost, made int
			for i, err := range errs {
				switch {
				case err == nil && invs[i] != nil:
					made++
				case errors.Is(err, kassa.ErrClaimLost) && i != 1 && i != 2:
					lost++
				default:
					t.Errorf("create %d: %v", i, err)
				}
			}
			if lost != 1 || made != len(creates)-1 {
				t.Fatalf("%d made, %d lost the key, want %d and 1", made, lost, len(creates)-1)
			}
			if n := transactions(t, cfg, invs); n != made {
				t.Errorf("%d transactions for %d creates, want one each (the batch split)", n, made)
			}
		})
	}
}

// TestPostgresCreateWithdrawn: a create whose caller gives up before the writer
// takes it is never written.
func TestPostgresCreateWithdrawn(t *testing.T) {
	cfg := storetest.PostgresConfig(t)
	f := newFixture(t, cfg)
	release := store.HoldCreates(t, f.db)
	ctx, cancel := context.WithCancel(f.ctx)
	errc := make(chan error, 1)
	go func() {
		_, _, err := invoicing.Over(f.db).CreateInvoice(ctx, principal(f.m), kassa.InvoiceCreate{Amount: 1000}, nil)
		errc <- err
	}()
	store.WaitCreatesQueued(t, f.db, 1)
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v, want context.Canceled", err)
	}
	release(0)
	f.invoice(t, f.m, 2000, nil) // the writer runs, and wrote nothing before
	invs, _, err := f.db.Invoices(f.ctx, kassa.InvoiceFilter{MerchantID: f.m.ID, Limit: 10})
	must(t, err)
	if len(invs) != 1 || invs[0].Amount != 2000 {
		t.Fatalf("invoices %s, want only the later one", jsonOf(t, invs))
	}
}
