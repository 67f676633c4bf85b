package payment_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/payment"
	"github.com/kassapay/kassa/registry"
	"github.com/kassapay/kassa/store"
	"github.com/kassapay/kassa/store/storetest"
)

// TestConfirmationsNeeded: each network needs the confirmations the registry
// gives it in its environment; a network the registry lacks there, or no
// registry, needs none.
func TestConfirmationsNeeded(t *testing.T) {
	reg := registry.Default()
	tracker := payment.Tracker{Registry: reg}
	for _, n := range append(reg.Networks(kassa.Devnet), reg.Networks(kassa.Mainnet)...) {
		env := kassa.Devnet
		if _, ok := reg.Network(kassa.Devnet, n.Name); !ok {
			env = kassa.Mainnet
		}
		if got := tracker.ConfirmationsNeeded(env, n.Name); got != n.Confirmations || got <= 0 {
			t.Errorf("%s %s needs %d confirmations, registry says %d", env, n.Name, got, n.Confirmations)
		}
	}
	for _, tc := range []struct {
		name    string
		tracker payment.Tracker
		env     kassa.Environment
		network string
		want    int
	}{
		{"devnet network", tracker, kassa.Devnet, "bsc-testnet", 3},
		{"mainnet network", tracker, kassa.Mainnet, "bsc", 15},
		{"mainnet network asked on devnet", tracker, kassa.Devnet, "bsc", 0},
		{"unknown network", tracker, kassa.Devnet, "nowhere", 0},
		{"no registry", payment.Tracker{}, kassa.Devnet, "bsc-testnet", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.tracker.ConfirmationsNeeded(tc.env, tc.network); got != tc.want {
				t.Fatalf("ConfirmationsNeeded(%s, %s) = %d, want %d", tc.env, tc.network, got, tc.want)
			}
		})
	}
}

// status reads inv again and summarises it with tracker.
func (f *fixture) status(t *testing.T, tracker payment.Tracker, inv *kassa.Invoice) payment.Status {
	t.Helper()
	st, err := tracker.Status(f.ctx, f.reload(t, inv))
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// TestTrackerStatus: Status follows an invoice from unpaid through a pending
// payment to paid, each transfer with its confirmations and the confirmations its
// network needs as the registry says.
func TestTrackerStatus(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		f := newFixture(t, cfg)
		tracker := payment.Tracker{Payments: f.db, Registry: f.reg}
		inv := f.invoice(t, kassa.Devnet, 10_000, nil)

		st := f.status(t, tracker, inv)
		if st.Status != kassa.StatusUnpaid || st.AmountPaid != 0 || st.AmountRemaining != 10_000 ||
			st.AmountRemainingDecimal != kassa.Millis(10_000).Decimal() || st.PaidAt != nil || st.Payments == nil || len(st.Payments) != 0 {
			t.Fatalf("unpaid status %+v", st)
		}
		if b, err := json.Marshal(st); err != nil || !strings.Contains(string(b), `"payments":[]`) {
			t.Fatalf("unpaid status as JSON: %s (%v)", b, err)
		}

		// Locked to a Sepolia token: the payment is on a network of its own depth.
		f.lock(t, inv, 4)
		sepolia, _ := f.reg.Network(kassa.Devnet, "ethereum-sepolia")
		hash := txHash('b')
		pending, _ := f.devnetPay(t, inv, payment.DevnetPayment{Pending: true, TxHash: hash, Amount: new(kassa.Millis(4_000))})
		st = f.status(t, tracker, inv)
		want := payment.StatusPayment{Status: kassa.PaymentPending, TxHash: hash, Network: "ethereum-sepolia",
			AmountToken:      kassa.FormatUnits(pending.AmountUnits, f.token(t, kassa.Devnet, 4).Decimals),
			AmountTokenUnits: pending.AmountUnits.String(), Confirmations: 0, ConfirmationsRequired: sepolia.Confirmations}
		if st.Status != kassa.StatusUnpaid || st.AmountPending != 4_000 || len(st.Payments) != 1 || st.Payments[0] != want {
			t.Fatalf("pending status %+v, want payment %+v", st, want)
		}

		f.devnetPay(t, inv, payment.DevnetPayment{TxHash: hash, Amount: new(kassa.Millis(4_000))})
		st = f.status(t, tracker, inv)
		// Confirmed below what the quote asked: an underpaid receipt.
		want.Status, want.Confirmations = kassa.PaymentUnderpaid, sepolia.Confirmations
		if st.Status != kassa.StatusUnderpaid || st.AmountPending != 0 || st.AmountPaid != 4_000 || st.AmountRemaining != 6_000 ||
			st.AmountPaidDecimal != kassa.Millis(4_000).Decimal() || len(st.Payments) != 1 || st.Payments[0] != want {
			t.Fatalf("underpaid status %+v, want payment %+v", st, want)
		}

		f.clock.Advance(time.Second) // receipts list newest first
		rest, _ := f.devnetPay(t, inv, payment.DevnetPayment{})
		got := f.reload(t, inv)
		st = f.status(t, tracker, inv)
		if st.Status != kassa.StatusPaid || st.AmountRemaining != 0 || st.AmountPaid != 10_000 || len(st.Payments) != 2 {
			t.Fatalf("paid status %+v", st)
		}
		if got.PaidAt == nil || st.PaidAt == nil || *st.PaidAt != kassa.FormatTime(*got.PaidAt) {
			t.Fatalf("paid_at %v, invoice paid at %v", st.PaidAt, got.PaidAt)
		}
		if p := st.Payments[0]; p.TxHash != rest.TxHash || p.Confirmations != sepolia.Confirmations ||
			p.ConfirmationsRequired != sepolia.Confirmations || p.AmountTokenUnits != f.owedUnits(t, f.token(t, kassa.Devnet, 4), 6_000) {
			t.Fatalf("newest payment %+v, want %s first", p, rest.TxHash)
		}

		// Without a registry nothing is required; without receipts there are none.
		if st := f.status(t, payment.Tracker{Payments: f.db}, inv); len(st.Payments) != 2 || st.Payments[0].ConfirmationsRequired != 0 {
			t.Fatalf("status without a registry %+v", st)
		}
		if st := f.status(t, payment.Tracker{Registry: f.reg}, inv); st.Payments == nil || len(st.Payments) != 0 || st.Status != kassa.StatusPaid {
			t.Fatalf("status without receipts %+v", st)
		}
	})
}
