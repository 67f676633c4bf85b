package worker_test

import (
	"context"
	"testing"
	"time"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/store"
	"github.com/kassapay/kassa/store/storetest"
	"github.com/kassapay/kassa/worker"
)

// TestExpiryStoresExpiry runs Expiry on the real store: an invoice whose expiry has
// passed is expired at once, without anyone reading it.
func TestExpiryStoresExpiry(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		clock := storetest.NewClock(time.Now())
		cfg.Now = clock.Now
		db := storetest.Open(t, cfg)
		ctx := context.Background()
		m, err := db.CreateMerchant(ctx, kassa.MerchantCreate{Name: "Shop", Email: "x@example.com", Password: "correct horse"})
		if err != nil {
			t.Fatal(err)
		}
		minute := time.Minute
		p := kassa.Principal{MerchantID: m.ID, Environment: kassa.Devnet, Scope: kassa.ScopeMerchant}
		inv, _, err := db.CreateInvoice(ctx, p, kassa.InvoiceCreate{Amount: 1000, ExpiresIn: &minute}, nil)
		if err != nil {
			t.Fatal(err)
		}
		clock.Advance(2 * time.Minute)
		feed, err := db.FeedHead(ctx)
		if err != nil {
			t.Fatal(err)
		}
		runCtx, stop := context.WithCancel(ctx)
		done := make(chan struct{})
		go func() {
			defer close(done)
			worker.Expiry(runCtx, db, nil, nil)
		}()
		defer func() { stop(); <-done }()
		deadline := time.Now().Add(10 * time.Second)
		for {
			events, err := db.FeedAfter(ctx, feed, 10)
			if err != nil {
				t.Fatal(err)
			}
			if len(events) > 0 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatal("Expiry stored no expiry")
			}
			time.Sleep(10 * time.Millisecond)
		}
		got, err := db.Invoice(ctx, m.ID, inv.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got.Status != kassa.StatusExpired {
			t.Fatalf("invoice %s, want expired", got.Status)
		}
	})
}
