package store_test

import (
	"testing"
	"time"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/store"
	"github.com/kassapay/kassa/store/storetest"
)

func TestExpireInvoices(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		f := newFixture(t, cfg)
		short := func(c *kassa.InvoiceCreate) { d := time.Minute; c.ExpiresIn = &d }
		due := f.invoice(t, f.m, 1000, short)
		waiting := f.invoice(t, f.m, 1000, short) // a payment is pending: it waits
		f.pay(t, waiting, "0xaa", 1000, false)
		open := f.invoice(t, f.m, 1000, nil)
		f.clock.Advance(2 * time.Minute)

		n, err := f.db.ExpireInvoices(f.ctx, 100)
		must(t, err)
		if n != 1 {
			t.Fatalf("expired %d invoices, want 1", n)
		}
		for _, c := range []struct {
			inv  *kassa.Invoice
			want kassa.InvoiceStatus
		}{{due, kassa.StatusExpired}, {waiting, kassa.StatusUnpaid}, {open, kassa.StatusUnpaid}} {
			got, err := f.db.Invoice(f.ctx, f.m.ID, c.inv.ID)
			must(t, err)
			if got.Status != c.want {
				t.Errorf("invoice %s: %s, want %s", c.inv.ID, got.Status, c.want)
			}
		}
		if types := f.eventTypes(t, 2); types[0] != "invoice.updated" || types[1] != "invoice.expired" {
			t.Fatalf("events %v", types)
		}
		if n, err = f.db.ExpireInvoices(f.ctx, 100); err != nil || n != 0 {
			t.Fatalf("second sweep expired %d (%v), want 0", n, err)
		}
		// Once the watch after expiry ends, the pending payment is set aside and the
		// waiting invoice expires (so does the 12-hour one by then).
		f.clock.Advance(kassa.WatchAfterExpiry)
		if n, err = f.db.ExpireInvoices(f.ctx, 100); err != nil || n != 2 {
			t.Fatalf("sweep after the watch expired %d (%v), want 2", n, err)
		}
		got, err := f.db.Invoice(f.ctx, f.m.ID, waiting.ID)
		must(t, err)
		rs, err := f.db.InvoicePayments(f.ctx, f.m.ID, waiting.ID, 10)
		must(t, err)
		if got.Status != kassa.StatusExpired || got.AmountPending != 0 || rs[0].Status != kassa.PaymentManualRetry {
			t.Fatalf("after the watch: %s pending %d, receipt %s", got.Status, got.AmountPending, rs[0].Status)
		}
	})
}
