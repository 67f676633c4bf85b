package store_test

import (
	"testing"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/store"
	"github.com/kassapay/kassa/store/storetest"
)

// TestIngestStaleReport: a report of a recorded transfer that is older than what
// is stored (from the same block: unconfirmed after confirmed, or fewer
// confirmations) changes nothing and emits nothing. Newer reports, and a report
// from another block (a reorganisation moved the transfer), still apply.
func TestIngestStaleReport(t *testing.T) {
	cases := []struct {
		name          string
		firstConfs    int
		again         kassa.BlockRef
		againConfs    int
		againPending  bool // report unconfirmed whatever the count
		status        kassa.InvoicePaymentStatus
		confirmations int
		written       []string // events the second report writes
	}{
		{"pending after confirmed", 3, blk(10, 0), 1, false, kassa.PaymentConfirmed, 3, nil},
		{"pending after confirmed, same count", 3, blk(10, 0), 3, true, kassa.PaymentConfirmed, 3, nil},
		{"fewer confirmations while pending", 2, blk(10, 0), 1, false, kassa.PaymentPending, 2, nil},
		{"more confirmations", 1, blk(10, 0), 2, false, kassa.PaymentPending, 2, []string{kassa.EventPaymentUpdated}},
		{"fewer confirmations from another block", 2, blk(11, 1), 1, false, kassa.PaymentPending, 1,
			[]string{kassa.EventPaymentUpdated}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
				f := newFixture(t, cfg)
				inv := f.invoice(t, f.m, 1000, nil)
				_, first := f.chainPay(t, inv, "0xaa", 0, 1000, blk(10, 0), c.firstConfs)
				f.clock.Advance(1)
				before := len(f.eventTypes(t, 100))
				in := chainInput(inv, "0xaa", 0, 1000, c.again, c.againConfs)
				if c.againPending {
					in.Confirmed = false
				}
				r, got, err := f.db.IngestPayment(f.ctx, in)
				must(t, err)
				if r.Status != c.status || r.Confirmations != c.confirmations {
					t.Fatalf("receipt %s with %d confirmations, want %s with %d", r.Status, r.Confirmations,
						c.status, c.confirmations)
				}
				rs, err := f.db.InvoicePayments(f.ctx, f.m.ID, inv.ID, 10)
				must(t, err)
				if len(rs) != 1 || rs[0].Status != c.status || rs[0].Confirmations != c.confirmations {
					t.Fatalf("stored receipts %+v", rs)
				}
				stored := f.stored(t, inv)
				if got.Status != first.Status || stored.Status != first.Status || stored.AmountPaid != first.AmountPaid ||
					stored.AmountPending != first.AmountPending {
					t.Fatalf("invoice %s paid %d pending %d, was %s paid %d pending %d", stored.Status,
						stored.AmountPaid, stored.AmountPending, first.Status, first.AmountPaid, first.AmountPending)
				}
				written := f.eventTypes(t, 100)[before:]
				if len(written) != len(c.written) || (len(written) > 0 && written[0] != c.written[0]) {
					t.Fatalf("the second report wrote %v, want %v", written, c.written)
				}
			})
		})
	}
}
