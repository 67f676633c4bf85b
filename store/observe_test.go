package store_test

import (
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/invoicing"
	"github.com/kassapay/kassa/store"
	"github.com/kassapay/kassa/store/storetest"
)

// recorder is a store.Observer that writes down every call.
type recorder struct {
	mu    sync.Mutex
	calls []string
}

func (r *recorder) add(s string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.calls = append(r.calls, s)
}

func (r *recorder) InvoiceCreated() { r.add("created") }
func (r *recorder) InvoiceMoved(from, to kassa.InvoiceStatus) {
	r.add(fmt.Sprintf("moved %s>%s", from, to))
}
func (r *recorder) PaymentDetected(env kassa.Environment, network string, tokenID int64) {
	r.add(fmt.Sprintf("payment %s/%s/%d", env, network, tokenID))
}
func (r *recorder) SettlementFinished(network string, status kassa.SettlementStatus) {
	r.add(fmt.Sprintf("settled %s/%s", network, status))
}

// take returns the calls so far and forgets them.
func (r *recorder) take() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.calls
	r.calls = nil
	return out
}

// TestObserverSeesCommittedChanges: each committed change is reported once, after
// its commit, and a transaction that fails reports nothing.
func TestObserverSeesCommittedChanges(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		rec := &recorder{}
		cfg.Observer = rec
		f := newFixture(t, cfg)
		expect := func(step string, want ...string) {
			t.Helper()
			if got := rec.take(); !slices.Equal(got, want) {
				t.Fatalf("%s: observer got %q, want %q", step, got, want)
			}
		}

		short := func(c *kassa.InvoiceCreate) { d := time.Minute; c.ExpiresIn = &d }
		paid := f.invoice(t, f.m, 1000, nil)
		partial := f.invoice(t, f.m, 1000, nil)
		canceled := f.invoice(t, f.m, 1000, nil)
		expiring := f.invoice(t, f.m, 1000, short)
		expect("create", "created", "created", "created", "created")

		f.pay(t, paid, "0x01", 1000, false)
		expect("pending payment", "payment devnet/bsc-testnet/1")
		f.pay(t, paid, "0x01", 1000, true) // the same transfer, now confirmed
		expect("confirmation", "moved unpaid>paid")
		f.pay(t, partial, "0x02", 400, true)
		expect("underpayment", "payment devnet/bsc-testnet/1", "moved unpaid>underpaid")

		_, err := invoicing.Over(f.db).CancelInvoice(f.ctx, principal(f.m), canceled.ID)
		must(t, err)
		expect("cancel", "moved unpaid>canceled")
		_, err = invoicing.Over(f.db).CancelInvoice(f.ctx, principal(f.m), paid.ID)
		wantErr(t, err, kassa.KindConflict, "invoice_not_cancelable")
		expect("refused cancel")

		f.clock.Advance(2 * time.Minute)
		n, err := f.db.ExpireInvoices(f.ctx, 100)
		must(t, err)
		if n != 1 {
			t.Fatalf("expired %d, want 1 (%s)", n, expiring.ID)
		}
		expect("expiry", "moved unpaid>expired")

		jobs, err := f.db.ClaimSettlements(f.ctx, 10, time.Minute)
		must(t, err)
		if len(jobs) != 2 {
			t.Fatalf("claimed %d settlements, want 2", len(jobs))
		}
		expect("claim")
		must(t, f.db.FinishSettlement(f.ctx, jobs[0].ReceiptID, kassa.SettlementSettled, "0xabc", ""))
		must(t, f.db.FinishSettlement(f.ctx, jobs[1].ReceiptID, kassa.SettlementManual, "", "no route"))
		expect("settlement", "settled bsc-testnet/settled", "settled bsc-testnet/manual")
		wantErr(t, f.db.FinishSettlement(f.ctx, jobs[1].ReceiptID, kassa.SettlementSettled, "0xabc", ""),
			kassa.KindConflict, "settlement_not_processing")
		expect("settlement finished twice")
	})
}

// TestObserverOnSQLiteGroupCommit: under SQLite's group commit, jobs that fail
// inside a shared commit report nothing and the others report theirs.
func TestObserverOnSQLiteGroupCommit(t *testing.T) {
	rec := &recorder{}
	cfg := storetest.SQLiteConfig(t)
	cfg.Observer = rec
	f := newFixture(t, cfg)
	inv := f.invoice(t, f.m, 1000, nil)
	rec.take()
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Go(func() {
			if i%2 == 0 {
				_, _, _ = f.db.IngestPayment(f.ctx, paymentInput(inv, fmt.Sprintf("0x%02x", i), 10, false))
			} else {
				_, err := invoicing.Over(f.db).CancelInvoice(f.ctx, principal(f.m), inv.ID) // has payments, or will have: refused or canceled
				_ = err
			}
		})
	}
	wg.Wait()
	got := rec.take()
	payments, canceled := 0, 0
	for _, c := range got {
		switch c {
		case "payment devnet/bsc-testnet/1":
			payments++
		case "moved unpaid>canceled":
			canceled++
		default:
			t.Errorf("unexpected call %q", c)
		}
	}
	rs, err := f.db.InvoicePayments(f.ctx, f.m.ID, inv.ID, 100)
	must(t, err)
	stored, err := f.db.Invoice(f.ctx, f.m.ID, inv.ID)
	must(t, err)
	wantCanceled := 0
	if stored.Status == kassa.StatusCanceled {
		wantCanceled = 1
	}
	if payments != len(rs) || canceled != wantCanceled {
		t.Fatalf("observer saw %d payments and %d cancels; the store holds %d receipts and status %s",
			payments, canceled, len(rs), stored.Status)
	}
}
