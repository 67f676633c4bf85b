package store_test

import (
	"context"
	"errors"
	"testing"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/store"
	"github.com/kassapay/kassa/store/storetest"
)

// TestBoundedReads: the reads that skip the cost of watching their context (a
// page of invoices, one invoice by id) finish even when it is cancelled; those
// that may run long (a search, the needs-attention filter) stop.
func TestBoundedReads(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		f := newFixture(t, cfg)
		inv := f.invoice(t, f.m, 100, nil)
		ctx, cancel := context.WithCancel(f.ctx)
		cancel()

		page, _, err := f.db.Invoices(ctx, kassa.InvoiceFilter{MerchantID: f.m.ID})
		if err != nil || len(page) != 1 || page[0].ID != inv.ID {
			t.Fatalf("page under a cancelled context: %v, %v", ids(page), err)
		}
		got, err := f.db.Invoice(ctx, f.m.ID, inv.ID)
		if err != nil || got.ID != inv.ID {
			t.Fatalf("invoice under a cancelled context: %v, %v", got, err)
		}
		for _, filter := range []kassa.InvoiceFilter{
			{MerchantID: f.m.ID, Query: "load"},
			{MerchantID: f.m.ID, NeedsAttention: true},
		} {
			if _, _, err := f.db.Invoices(ctx, filter); !errors.Is(err, context.Canceled) {
				t.Errorf("%+v under a cancelled context: err %v, want context.Canceled", filter, err)
			}
		}
	})
}
