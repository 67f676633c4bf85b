package store_test

import (
	"testing"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/store"
	"github.com/kassapay/kassa/store/storetest"
)

// TestIngestReincluded: a transfer whose block left the chain and that is reported
// again from a canonical block (a reorganisation re-included its transaction) is
// the same receipt, under its old log index or another, so it never counts twice;
// a receipt a person must look at stays manual_retry. Other amounts, and a second
// transfer of a transaction still on the chain, are receipts of their own.
func TestIngestReincluded(t *testing.T) {
	type report struct {
		logIndex      int64
		usd           kassa.Millis
		confirmations int
	}
	cases := []struct {
		name     string
		first    report
		rewind   bool
		again    report
		receipts int
		status   kassa.InvoicePaymentStatus // of the receipt again reports
		paid     kassa.Millis
		pending  kassa.Millis
	}{
		{"same log index, still pending", report{2, 400, 1}, true, report{2, 400, 1}, 1, kassa.PaymentPending, 0, 400},
		{"other log index, still pending", report{2, 400, 1}, true, report{5, 400, 1}, 1, kassa.PaymentPending, 0, 400},
		{"other log index, confirmed on return", report{2, 400, 1}, true, report{5, 400, 3}, 1, kassa.PaymentUnderpaid, 400, 0},
		{"same log index, confirmed on return", report{2, 1000, 2}, true, report{2, 1000, 4}, 1, kassa.PaymentConfirmed, 1000, 0},
		{"lost after confirming: stays for a person", report{2, 400, 3}, true, report{5, 400, 3}, 1, kassa.PaymentManualRetry, 0, 0},
		{"other amount is another transfer", report{2, 400, 1}, true, report{5, 300, 1}, 2, kassa.PaymentPending, 0, 700},
		{"a transfer still on the chain is not matched", report{2, 400, 1}, false, report{5, 400, 1}, 2, kassa.PaymentPending, 0, 800},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
				f := newFixture(t, cfg)
				inv := f.invoice(t, f.m, 1000, nil)
				f.chainPay(t, inv, "0xaa", c.first.logIndex, c.first.usd, blk(10, 0), c.first.confirmations)
				if c.rewind {
					_, err := f.db.RewindChain(f.ctx, chainNet, blk(9, 0))
					must(t, err)
				}
				f.clock.Advance(1)
				before := len(f.eventTypes(t, 100))
				r, got := f.chainPay(t, inv, "0xaa", c.again.logIndex, c.again.usd, blk(11, 1), c.again.confirmations)
				if r.Status != c.status || r.LogIndex != c.again.logIndex || r.BlockNumber != 11 || r.BlockHash != blockHash(11, 1) {
					t.Fatalf("receipt %s at log %d in block %d %q, want %s at log %d in block 11", r.Status, r.LogIndex,
						r.BlockNumber, r.BlockHash, c.status, c.again.logIndex)
				}
				rs, err := f.db.InvoicePayments(f.ctx, f.m.ID, inv.ID, 10)
				must(t, err)
				if len(rs) != c.receipts {
					t.Fatalf("%d receipts, want %d", len(rs), c.receipts)
				}
				for _, s := range []*kassa.Invoice{got, f.stored(t, inv)} {
					if s.AmountPaid != c.paid || s.AmountPending != c.pending {
						t.Fatalf("invoice paid %d pending %d, want %d and %d", s.AmountPaid, s.AmountPending, c.paid, c.pending)
					}
				}
				if n := f.eventCounts(t, 100)[kassa.EventPaymentCreated]; n != c.receipts {
					t.Fatalf("%d invoice_payment.created events for %d receipts", n, c.receipts)
				}
				want := kassa.EventPaymentUpdated // the same receipt
				if c.receipts == 2 {
					want = kassa.EventPaymentCreated
				}
				if written := f.eventTypes(t, 100)[before:]; len(written) == 0 || written[0] != want {
					t.Fatalf("the second report wrote %v, want %s first", written, want)
				}
			})
		})
	}
}

// TestIngestBlockInput: a transfer reported again in the same block with the same
// count changes nothing; a block needs both its number and its hash.
func TestIngestBlockInput(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		f := newFixture(t, cfg)
		inv := f.invoice(t, f.m, 1000, nil)
		r, _ := f.chainPay(t, inv, "0xAA", 0, 400, kassa.BlockRef{Number: 10, Hash: "0xBEEF"}, 1)
		if r.BlockNumber != 10 || r.BlockHash != "0xbeef" || !r.OnChain() || r.Orphaned() {
			t.Fatalf("receipt in block %d %q", r.BlockNumber, r.BlockHash)
		}
		wakes := f.wakes()
		f.chainPay(t, inv, "0xaa", 0, 400, blk(10, 0), 1)
		if f.wakes() == wakes {
			t.Fatal("a transfer reported from another block at the same height changed nothing")
		}
		wakes = f.wakes()
		f.chainPay(t, inv, "0xaa", 0, 400, blk(10, 0), 1)
		if f.wakes() != wakes {
			t.Fatal("the same report twice wrote something")
		}
		for _, b := range []kassa.BlockRef{{Number: 5}, {Hash: "0xbeef"}} {
			_, _, err := f.db.IngestPayment(f.ctx, chainInput(inv, "0xbb", 0, 100, b, 1))
			wantErr(t, err, kassa.KindInvalid, "invalid_transfer")
		}
	})
}
