package payment_test

import (
	"strings"
	"testing"
	"time"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/payment"
	"github.com/kassapay/kassa/store"
	"github.com/kassapay/kassa/store/storetest"
)

// receipts lists inv's receipts, newest first.
func (f *fixture) receipts(t *testing.T, inv *kassa.Invoice) []*kassa.InvoicePayment {
	t.Helper()
	rs, err := f.db.InvoicePayments(f.ctx, inv.MerchantID, inv.ID, 100)
	if err != nil {
		t.Fatal(err)
	}
	return rs
}

// TestDevnetPayRefuses: mainnet invoices, invoices whose watch ended, tokens the
// devnet registry lacks and a service without the ingestion path get no devnet
// payment, and nothing is recorded.
func TestDevnetPayRefuses(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		f := newFixture(t, cfg)
		minute := time.Minute
		for _, tc := range []struct {
			name        string
			env         kassa.Environment
			expiresIn   *time.Duration
			advance     time.Duration
			req         payment.DevnetPayment
			unconfigure bool
			kind        kassa.ErrorKind
			code, param string
		}{
			{name: "mainnet invoice", env: kassa.Mainnet,
				kind: kassa.KindPermission, code: "devnet_only"},
			{name: "watch ended", env: kassa.Devnet, expiresIn: &minute, advance: minute + kassa.WatchAfterExpiry,
				kind: kassa.KindConflict, code: "watch_ended"},
			{name: "long after the watch", env: kassa.Devnet, expiresIn: &minute, advance: 48 * time.Hour,
				kind: kassa.KindConflict, code: "watch_ended"},
			{name: "unknown token", env: kassa.Devnet, req: payment.DevnetPayment{TokenID: new(int64(999))},
				kind: kassa.KindInvalid, code: "invalid_token", param: "token_id"},
			{name: "mainnet token", env: kassa.Devnet, req: payment.DevnetPayment{TokenID: new(int64(101))},
				kind: kassa.KindInvalid, code: "invalid_token", param: "token_id"},
			{name: "no ingestion path", env: kassa.Devnet, unconfigure: true,
				kind: kassa.KindPermission, code: "devnet_only"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				f.clock.Set(t0)
				inv := f.invoice(t, tc.env, 10_000, func(c *kassa.InvoiceCreate) { c.ExpiresIn = tc.expiresIn })
				f.clock.Advance(tc.advance)
				svc := *f.svc
				if tc.unconfigure {
					svc.Payments = nil
				}
				_, _, err := svc.DevnetPay(f.ctx, inv.MerchantID, inv.ID, tc.req)
				wantError(t, err, tc.kind, tc.code, tc.param)
				if rs := f.receipts(t, inv); len(rs) != 0 {
					t.Fatalf("refused payment recorded %d receipts", len(rs))
				}
			})
		}
	})
}

// TestDevnetPayUnknownInvoice: another merchant's invoice, or none, is not found.
func TestDevnetPayUnknownInvoice(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		f := newFixture(t, cfg)
		inv := f.invoice(t, kassa.Devnet, 10_000, nil)
		if _, _, err := f.svc.DevnetPay(f.ctx, inv.MerchantID+1, inv.ID, payment.DevnetPayment{}); kassa.ErrorKindOf(err) != kassa.KindNotFound {
			t.Fatalf("another merchant's invoice: %v", err)
		}
		if _, err := f.svc.PayInvoice(f.ctx, inv.MerchantID+1, inv.ID, nil); kassa.ErrorKindOf(err) != kassa.KindNotFound {
			t.Fatalf("PayInvoice, another merchant's invoice: %v", err)
		}
	})
}

// TestDevnetPayStillWatched: just before the watch ends an expired invoice's
// address still takes a devnet payment.
func TestDevnetPayStillWatched(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		f := newFixture(t, cfg)
		minute := time.Minute
		inv := f.invoice(t, kassa.Devnet, 10_000, func(c *kassa.InvoiceCreate) { c.ExpiresIn = &minute })
		f.clock.Advance(minute + kassa.WatchAfterExpiry - time.Second)
		rec, _ := f.devnetPay(t, inv, payment.DevnetPayment{})
		if rec.AmountUSD != 10_000 || len(f.receipts(t, inv)) != 1 {
			t.Fatalf("late payment %+v", rec)
		}
	})
}

// TestDevnetPayDefaults: every field of a devnet payment has a default: what is
// still owed, the locked token else the first devnet stablecoin, confirmed at its
// network's depth, a fresh hash, DevnetPayer; each can be set.
func TestDevnetPayDefaults(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		f := newFixture(t, cfg)
		const from = "0x1111111111111111111111111111111111111111"
		for _, tc := range []struct {
			name        string
			lock        int64 // token locked first through LockAddress; 0: none
			req         payment.DevnetPayment
			wantToken   int64
			wantUSD     kassa.Millis // the receipt's amount
			wantFrom    string
			wantReceipt kassa.InvoicePaymentStatus
			wantStatus  kassa.InvoiceStatus
			wantPaid    kassa.Millis // the invoice's amount paid after it
		}{
			{name: "all defaults", wantToken: 1, wantUSD: 10_000, wantFrom: payment.DevnetPayer,
				wantReceipt: kassa.PaymentConfirmed, wantStatus: kassa.StatusPaid, wantPaid: 10_000},
			{name: "locked token", lock: 4, wantToken: 4, wantUSD: 10_000, wantFrom: payment.DevnetPayer,
				wantReceipt: kassa.PaymentConfirmed, wantStatus: kassa.StatusPaid, wantPaid: 10_000},
			{name: "named token", req: payment.DevnetPayment{TokenID: new(int64(5))}, wantToken: 5, wantUSD: 10_000,
				wantFrom: payment.DevnetPayer, wantReceipt: kassa.PaymentConfirmed, wantStatus: kassa.StatusPaid, wantPaid: 10_000},
			// The lock binds: money in another token is kept for a person.
			{name: "named token other than the lock", lock: 1, req: payment.DevnetPayment{TokenID: new(int64(2))},
				wantToken: 2, wantUSD: 10_000, wantFrom: payment.DevnetPayer,
				wantReceipt: kassa.PaymentManualRetry, wantStatus: kassa.StatusUnpaid, wantPaid: 0},
			{name: "amount and native token", req: payment.DevnetPayment{TokenID: new(int64(3)), Amount: new(kassa.Millis(2_500))},
				wantToken: 3, wantUSD: 2_500, wantFrom: payment.DevnetPayer,
				wantReceipt: kassa.PaymentUnderpaid, wantStatus: kassa.StatusUnderpaid, wantPaid: 2_500},
			{name: "from address", req: payment.DevnetPayment{FromAddress: from}, wantToken: 1, wantUSD: 10_000, wantFrom: from,
				wantReceipt: kassa.PaymentConfirmed, wantStatus: kassa.StatusPaid, wantPaid: 10_000},
		} {
			t.Run(tc.name, func(t *testing.T) {
				inv := f.invoice(t, kassa.Devnet, 10_000, nil)
				if tc.lock != 0 {
					f.lock(t, inv, tc.lock)
				}
				rec, got := f.devnetPay(t, inv, tc.req)
				tok := f.token(t, kassa.Devnet, tc.wantToken)
				network, _ := f.reg.Network(kassa.Devnet, tok.Network)
				if rec.TokenID != tc.wantToken || rec.Network != tok.Network || rec.AmountUSD != tc.wantUSD ||
					rec.AmountUnits.String() != f.owedUnits(t, tok, tc.wantUSD) {
					t.Fatalf("receipt token %d on %s, %d millis = %s units; want token %d, %d millis = %s units",
						rec.TokenID, rec.Network, rec.AmountUSD, rec.AmountUnits, tc.wantToken, tc.wantUSD, f.owedUnits(t, tok, tc.wantUSD))
				}
				if !strings.EqualFold(rec.FromAddress, tc.wantFrom) {
					t.Fatalf("from %s, want %s", rec.FromAddress, tc.wantFrom)
				}
				if rec.Status != tc.wantReceipt || rec.Confirmations != network.Confirmations {
					t.Fatalf("receipt %s with %d confirmations, want %s with %d", rec.Status, rec.Confirmations, tc.wantReceipt, network.Confirmations)
				}
				if !kassa.ValidTxHash(rec.TxHash) {
					t.Fatalf("generated hash %q", rec.TxHash)
				}
				if got.Status != tc.wantStatus || got.AmountPaid != tc.wantPaid {
					t.Fatalf("invoice %s with %d paid, want %s with %d", got.Status, got.AmountPaid, tc.wantStatus, tc.wantPaid)
				}
			})
		}
	})
}

// TestDevnetPayRest: by default a devnet payment pays what is still owed, each one
// with its own hash.
func TestDevnetPayRest(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		f := newFixture(t, cfg)
		inv := f.invoice(t, kassa.Devnet, 10_000, nil)
		first, got := f.devnetPay(t, inv, payment.DevnetPayment{Amount: new(kassa.Millis(4_000))})
		if got.Status != kassa.StatusUnderpaid || got.AmountRemaining() != 6_000 {
			t.Fatalf("after 4.000: %s, %d owed", got.Status, got.AmountRemaining())
		}
		rest, got := f.devnetPay(t, inv, payment.DevnetPayment{})
		if rest.AmountUSD != 6_000 || rest.TxHash == first.TxHash {
			t.Fatalf("rest paid %d with hash %s (first %s)", rest.AmountUSD, rest.TxHash, first.TxHash)
		}
		if got.Status != kassa.StatusPaid || got.AmountPaid != 10_000 || got.AmountRemaining() != 0 {
			t.Fatalf("after the rest: %s, %d paid", got.Status, got.AmountPaid)
		}
		if rs := f.receipts(t, inv); len(rs) != 2 {
			t.Fatalf("%d receipts, want 2", len(rs))
		}
	})
}

// TestDevnetPayPendingThenConfirmed: a pending payment counts as pending with no
// confirmations; the same hash again confirms that receipt, adding no money twice.
func TestDevnetPayPendingThenConfirmed(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		f := newFixture(t, cfg)
		inv := f.invoice(t, kassa.Devnet, 10_000, nil)
		hash := txHash('a')

		pending, got := f.devnetPay(t, inv, payment.DevnetPayment{Pending: true, TxHash: hash})
		if pending.Status != kassa.PaymentPending || pending.Confirmations != 0 || pending.TxHash != hash || pending.ConfirmedAt != nil {
			t.Fatalf("pending receipt %+v", pending)
		}
		if got.Status != kassa.StatusUnpaid || got.AmountPending != 10_000 || got.AmountPaid != 0 {
			t.Fatalf("invoice %s, %d pending, %d paid", got.Status, got.AmountPending, got.AmountPaid)
		}

		confirmed, got := f.devnetPay(t, inv, payment.DevnetPayment{TxHash: hash})
		if confirmed.ID != pending.ID || confirmed.TxHash != hash || confirmed.Status != kassa.PaymentConfirmed || confirmed.Confirmations != 3 {
			t.Fatalf("confirmed receipt %+v, pending was %s", confirmed, pending.ID)
		}
		if got.Status != kassa.StatusPaid || got.AmountPending != 0 || got.AmountPaid != 10_000 {
			t.Fatalf("invoice %s, %d pending, %d paid", got.Status, got.AmountPending, got.AmountPaid)
		}
		if rs := f.receipts(t, inv); len(rs) != 1 {
			t.Fatalf("%d receipts, want 1", len(rs))
		}
	})
}
