package store_test

import (
	"fmt"
	"math/big"
	"sync"
	"testing"
	"time"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/invoicing"
	"github.com/kassapay/kassa/store"
	"github.com/kassapay/kassa/store/storetest"
)

// pay ingests a transfer of usd millis to inv with the given hash.
func (f *fixture) pay(t *testing.T, inv *kassa.Invoice, hash string, usd kassa.Millis, confirmed bool) (*kassa.Payment, *kassa.Invoice) {
	t.Helper()
	r, got, err := f.db.IngestPayment(f.ctx, paymentInput(inv, hash, usd, confirmed))
	must(t, err)
	return r, got
}

func paymentInput(inv *kassa.Invoice, hash string, usd kassa.Millis, confirmed bool) kassa.PaymentInput {
	return kassa.PaymentInput{MerchantID: inv.MerchantID, InvoiceID: inv.ID, Network: "bsc-testnet", TxHash: hash,
		TokenID: 1, FromAddress: "0x52908400098527886E0F7030069857D2E4169EE7",
		AmountUnits: big.NewInt(int64(usd) * 1_000_000_000_000_000), AmountUSD: usd, Confirmations: 1, Confirmed: confirmed}
}

// eventTypes returns the types of the merchant's newest n events, oldest first.
func (f *fixture) eventTypes(t *testing.T, n int) []string {
	t.Helper()
	events, err := f.recentEvents(n)
	must(t, err)
	out := make([]string, len(events))
	for i, e := range events {
		out[len(events)-1-i] = e.Type
	}
	return out
}

func TestIngestPaymentLifecycle(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		f := newFixture(t, cfg)
		inv := f.invoice(t, f.m, 1000, nil)

		r, got := f.pay(t, inv, "0xaa", 400, false)
		if r.Status != kassa.PaymentPending || got.Status != kassa.StatusUnpaid || got.AmountPending != 400 || got.AmountPaid != 0 {
			t.Fatalf("pending: receipt %s, invoice %s paid %d pending %d", r.Status, got.Status, got.AmountPaid, got.AmountPending)
		}
		r, got = f.pay(t, inv, "0xaa", 400, true) // the same transfer, now confirmed
		if r.Status != kassa.PaymentUnderpaid || got.Status != kassa.StatusUnderpaid || got.AmountPaid != 400 || got.AmountPending != 0 {
			t.Fatalf("confirmed part: receipt %s, invoice %s paid %d pending %d", r.Status, got.Status, got.AmountPaid, got.AmountPending)
		}
		f.pay(t, inv, "0xaa", 400, true) // reported again: nothing moves
		f.clock.Advance(time.Second)
		r, got = f.pay(t, inv, "0xbb", 700, true)
		if r.Status != kassa.PaymentConfirmed || got.Status != kassa.StatusPaid || got.AmountPaid != 1100 ||
			got.AmountRemaining() != 0 || got.PaidAt == nil || got.PayerWalletAddress == nil || got.LastPaymentAt == nil {
			t.Fatalf("paid: receipt %s, invoice %+v", r.Status, got)
		}
		rs, err := f.db.InvoicePayments(f.ctx, f.m.ID, inv.ID, 10)
		must(t, err)
		if len(rs) != 2 || rs[0].TxHash != "0xbb" {
			t.Fatalf("receipts %+v", rs)
		}
		want := []string{"invoice_payment.created", "invoice.updated", "invoice_payment.updated", "invoice.updated",
			"invoice_payment.created", "invoice.updated", "invoice.paid"}
		if got := f.eventTypes(t, len(want)); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("events %v, want %v", got, want)
		}
		stored, err := f.db.Invoice(f.ctx, f.m.ID, inv.ID)
		must(t, err)
		if stored.Status != kassa.StatusPaid || stored.AmountPaid != 1100 {
			t.Fatalf("stored invoice %s paid %d", stored.Status, stored.AmountPaid)
		}

		// Money after the end is kept for a person and never flips the invoice.
		late := f.invoice(t, f.m, 1000, nil)
		f.clock.Advance(kassa.DefaultInvoiceTTL + time.Minute)
		r, got = f.pay(t, late, "0xcc", 1000, true)
		if r.Status != kassa.PaymentManualRetry || got.Status != kassa.StatusExpired || got.AmountPaid != 0 {
			t.Fatalf("late: receipt %s, invoice %s paid %d", r.Status, got.Status, got.AmountPaid)
		}
		want = []string{"invoice_payment.created", "invoice.paid_after_expiration", "invoice.updated", "invoice.expired"}
		if got := f.eventTypes(t, len(want)); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("late payment events %v, want %v", got, want)
		}

		// Another merchant's invoice is not found.
		other := f.merchant(t, "other@example.com")
		in := paymentInput(inv, "0xdd", 100, true)
		in.MerchantID = other.ID
		_, _, err = f.db.IngestPayment(f.ctx, in)
		wantErr(t, err, kassa.KindNotFound, "resource_missing")
	})
}

// TestIngestPaymentConcurrent ingests receipts for one invoice from many goroutines
// at once: every receipt must count (no lost update), on both engines.
func TestIngestPaymentConcurrent(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		f := newFixture(t, cfg)
		inv := f.invoice(t, f.m, 2000, nil)
		const n = 10
		var wg sync.WaitGroup
		errs := make([]error, n)
		for i := range n {
			wg.Go(func() {
				_, _, errs[i] = f.db.IngestPayment(f.ctx, paymentInput(inv, fmt.Sprintf("0x%02x", i), 100, true))
			})
		}
		wg.Wait()
		for _, err := range errs {
			must(t, err)
		}
		got, err := f.db.Invoice(f.ctx, f.m.ID, inv.ID)
		must(t, err)
		if got.AmountPaid != n*100 || got.Status != kassa.StatusUnderpaid {
			t.Fatalf("after %d concurrent receipts of 100: %s paid %d", n, got.Status, got.AmountPaid)
		}
	})
}

// TestCancelRefusedWithReceipts: an unpaid invoice with a pending payment (or money
// kept for a person) cannot be canceled.
func TestCancelRefusedWithReceipts(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		f := newFixture(t, cfg)
		inv := f.invoice(t, f.m, 1000, nil)
		f.pay(t, inv, "0xaa", 500, false)
		_, err := invoicing.Over(f.db).CancelInvoice(f.ctx, principal(f.m), inv.ID)
		wantErr(t, err, kassa.KindConflict, "invoice_has_payments")
	})
}

// TestIngestPaymentEdges covers the review's cases: new money after expiry while an
// earlier payment is pending is late; a pending payment confirms at its recorded
// amount and token; one transfer cannot go to two invoices or count twice by case;
// the first counted payment locks its token.
func TestIngestPaymentEdges(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		f := newFixture(t, cfg)
		short := func(c *kassa.InvoiceCreate) { d := time.Minute; c.ExpiresIn = &d }
		inv := f.invoice(t, f.m, 1000, short)
		f.pay(t, inv, "0xaa", 500, false) // seen before expiry, pending
		f.clock.Advance(2 * time.Minute)
		r, got := f.pay(t, inv, "0xbb", 1000, true) // new money after expiry
		if r.Status != kassa.PaymentManualRetry || got.Status == kassa.StatusPaid || got.AmountPaid != 0 {
			t.Fatalf("late money: receipt %s, invoice %s paid %d", r.Status, got.Status, got.AmountPaid)
		}
		if got.LockedTokenID == nil || *got.LockedTokenID != 1 {
			t.Fatalf("first counted payment did not lock its token: %v", got.LockedTokenID)
		}
		in := paymentInput(inv, "0xAA", 1000, true) // the pending one confirms (other case, other amount reported): short, and the invoice, past expiry, ends expired
		r, got, err := f.db.IngestPayment(f.ctx, in)
		must(t, err)
		if r.Status != kassa.PaymentUnderpaid || r.AmountUSD != 500 || got.AmountPaid != 500 || got.Status != kassa.StatusExpired {
			t.Fatalf("confirmed pending: receipt %s %d, invoice %s paid %d", r.Status, r.AmountUSD, got.Status, got.AmountPaid)
		}
		other := f.invoice(t, f.m, 1000, nil)
		_, _, err = f.db.IngestPayment(f.ctx, paymentInput(other, "0xaa", 1000, true))
		wantErr(t, err, kassa.KindConflict, "transfer_already_recorded")
	})
}

// TestInvoiceWithPaymentsNeverBehind reads an invoice with its receipts while
// transfers to it are confirmed one after another: every read's invoice counts
// exactly the confirmed receipts read with it (the payor's status once showed a
// confirmed transfer beside an unpaid invoice, and kassa pay stopped there; the
// dashboard's live view once showed a paid invoice without its payment).
func TestInvoiceWithPaymentsNeverBehind(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		f := newFixture(t, cfg)
		inv := f.invoice(t, f.m, 100_000, nil)
		const n = 40
		done := make(chan struct{})
		go func() {
			defer close(done)
			for i := range n {
				if _, _, err := f.db.IngestPayment(f.ctx, paymentInput(inv, fmt.Sprintf("0x%02x", i), 10, true)); err != nil {
					t.Error(err)
					return
				}
			}
		}()
		defer func() { <-done }() // the writer ends before the store closes
		reads := 0
		for stop := false; !stop; reads++ {
			select {
			case <-done:
				stop = true // one more read after the last write
			default:
			}
			got, rs, err := f.db.InvoiceWithPayments(f.ctx, f.m.ID, inv.ID, 0)
			must(t, err)
			var confirmed kassa.Millis
			for _, r := range rs {
				if r.Status == kassa.PaymentUnderpaid || r.Status == kassa.PaymentConfirmed {
					confirmed += r.AmountUSD
				}
			}
			if confirmed != got.AmountPaid { // one snapshot: neither behind nor ahead
				t.Fatalf("read %d: %d receipts confirm %d, the invoice read with them counts %d", reads, len(rs), confirmed, got.AmountPaid)
			}
			if stop && (len(rs) != n || got.AmountPaid != n*10) {
				t.Fatalf("at the end: %d receipts, paid %d", len(rs), got.AmountPaid)
			}
		}
		_, _, err := f.db.InvoiceWithPayments(f.ctx, f.m.ID, "not-a-uuid", 0)
		wantErr(t, err, kassa.KindNotFound, "resource_missing")
		other := f.merchant(t, "other@example.com")
		_, _, err = f.db.InvoiceWithPayments(f.ctx, other.ID, inv.ID, 0)
		wantErr(t, err, kassa.KindNotFound, "resource_missing")
	})
}
