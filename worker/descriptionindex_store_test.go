package worker_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/invoicing"
	"github.com/kassapay/kassa/store"
	"github.com/kassapay/kassa/store/storetest"
	"github.com/kassapay/kassa/worker"
)

// TestDescriptionIndexCatchesUp runs DescriptionIndex on a real SQLite store
// holding more invoices than a round takes: it indexes them all, round after
// round, and a search finds an invoice by a piece of its description.
func TestDescriptionIndexCatchesUp(t *testing.T) {
	db := storetest.Open(t, storetest.SQLiteConfig(t))
	ctx := context.Background()
	m, err := db.CreateMerchant(ctx, kassa.MerchantCreate{Name: "Shop", Email: "x@example.com", Password: "correct horse"})
	if err != nil {
		t.Fatal(err)
	}
	p := kassa.Principal{MerchantID: m.ID, Environment: kassa.Devnet, Scope: kassa.ScopeMerchant}
	const n = 1_200 // more than two rounds' batches
	for i := range n {
		d := fmt.Sprintf("order %d: a blue mug", i)
		if _, _, err := invoicing.Over(db).CreateInvoice(ctx, p, kassa.InvoiceCreate{Amount: 1000, Description: &d}, nil); err != nil {
			t.Fatal(err)
		}
	}
	if left, err := db.UnindexedDescriptions(ctx); err != nil || left != n {
		t.Fatalf("unindexed before the worker: %d (%v), want %d", left, err, n)
	}
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		worker.DescriptionIndex(runCtx, db, nil)
	}()
	defer func() { stop(); <-done }()
	deadline := time.Now().Add(10 * time.Second)
	for {
		left, err := db.UnindexedDescriptions(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if left == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d invoices still unindexed", left)
		}
		time.Sleep(10 * time.Millisecond)
	}
	got, _, err := db.Invoices(ctx, kassa.InvoiceFilter{MerchantID: m.ID, Query: "order 1117:", Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || *got[0].Description != "order 1117: a blue mug" {
		t.Fatalf("q order 1117: found %d invoices", len(got))
	}
}

// The worker's store is store.DB.
var _ worker.DescriptionIndexer = (*store.DB)(nil)
