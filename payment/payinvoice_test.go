package payment_test

import (
	"strings"
	"testing"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/invoicing"
	"github.com/kassapay/kassa/payment"
	"github.com/kassapay/kassa/store"
	"github.com/kassapay/kassa/store/storetest"
)

// TestPayInvoice: an open invoice is paid in full (the rest when part paid), from
// the wallet when it is an EVM address; an invoice that is not open is left as it
// is and reported unpaid.
func TestPayInvoice(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		f := newFixture(t, cfg)
		wallet := "0x2222222222222222222222222222222222222222"
		notAddress := "not an address"
		for _, tc := range []struct {
			name     string
			prepare  func(t *testing.T, inv *kassa.Invoice)
			wallet   *string
			paid     bool
			wantUSD  kassa.Millis // the new receipt's amount, when paid
			wantFrom string
			status   kassa.InvoiceStatus
		}{
			{name: "open", paid: true, wantUSD: 10_000, wantFrom: payment.DevnetPayer, status: kassa.StatusPaid},
			{name: "from the wallet", wallet: &wallet, paid: true, wantUSD: 10_000, wantFrom: wallet, status: kassa.StatusPaid},
			{name: "wallet not an address", wallet: &notAddress, paid: true, wantUSD: 10_000, wantFrom: payment.DevnetPayer, status: kassa.StatusPaid},
			{name: "underpaid", paid: true, wantUSD: 7_000, wantFrom: payment.DevnetPayer, status: kassa.StatusPaid,
				prepare: func(t *testing.T, inv *kassa.Invoice) {
					f.devnetPay(t, inv, payment.DevnetPayment{Amount: new(kassa.Millis(3_000))})
				}},
			{name: "paid", status: kassa.StatusPaid,
				prepare: func(t *testing.T, inv *kassa.Invoice) { f.devnetPay(t, inv, payment.DevnetPayment{}) }},
			{name: "canceled", status: kassa.StatusCanceled,
				prepare: func(t *testing.T, inv *kassa.Invoice) {
					p := kassa.Principal{MerchantID: inv.MerchantID, Environment: kassa.Devnet, Scope: kassa.ScopeMerchant}
					if _, err := invoicing.Over(f.db).CancelInvoice(f.ctx, p, inv.ID); err != nil {
						t.Fatal(err)
					}
				}},
		} {
			t.Run(tc.name, func(t *testing.T) {
				inv := f.invoice(t, kassa.Devnet, 10_000, nil)
				if tc.prepare != nil {
					tc.prepare(t, inv)
				}
				had := map[string]bool{}
				for _, r := range f.receipts(t, inv) {
					had[r.ID] = true
				}
				before := len(had)
				paid, err := f.svc.PayInvoice(f.ctx, inv.MerchantID, inv.ID, tc.wallet)
				if err != nil || paid != tc.paid {
					t.Fatalf("PayInvoice = %v, %v; want %v", paid, err, tc.paid)
				}
				rs := f.receipts(t, inv)
				if got := f.reload(t, inv); got.Status != tc.status {
					t.Fatalf("invoice %s, want %s", got.Status, tc.status)
				}
				if !tc.paid {
					if len(rs) != before {
						t.Fatalf("unpaid call recorded a receipt: %d, had %d", len(rs), before)
					}
					return
				}
				var added []*kassa.Payment
				for _, r := range rs {
					if !had[r.ID] {
						added = append(added, r)
					}
				}
				if len(added) != 1 || added[0].AmountUSD != tc.wantUSD || !strings.EqualFold(added[0].FromAddress, tc.wantFrom) ||
					added[0].Status != kassa.PaymentConfirmed {
					t.Fatalf("%d receipts added (had %d): %+v; want one of %d millis from %s", len(added), before, added, tc.wantUSD, tc.wantFrom)
				}
			})
		}
	})
}

// TestPayInvoiceUnconfigured: without the ingestion path an open invoice is
// refused (403 devnet_only), a paid one still reported unpaid.
func TestPayInvoiceUnconfigured(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		f := newFixture(t, cfg)
		svc := *f.svc
		svc.Payments = nil
		open := f.invoice(t, kassa.Devnet, 10_000, nil)
		_, err := svc.PayInvoice(f.ctx, open.MerchantID, open.ID, nil)
		wantError(t, err, kassa.KindPermission, "devnet_only", "")

		paid := f.invoice(t, kassa.Devnet, 10_000, nil)
		f.devnetPay(t, paid, payment.DevnetPayment{})
		if ok, err := svc.PayInvoice(f.ctx, paid.MerchantID, paid.ID, nil); ok || err != nil {
			t.Fatalf("PayInvoice of a paid invoice = %v, %v", ok, err)
		}
	})
}

// TestPayInvoiceDevnetOnly checks that a mainnet invoice is never paid by a
// simulated payment, and that nothing is recorded for it.
func TestPayInvoiceDevnetOnly(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		f := newFixture(t, cfg)
		inv := f.invoice(t, kassa.Mainnet, 10_000, nil)
		ok, err := f.svc.PayInvoice(f.ctx, inv.MerchantID, inv.ID, nil)
		wantError(t, err, kassa.KindPermission, "devnet_only", "")
		if ok || len(f.receipts(t, inv)) != 0 || f.reload(t, inv).Status != kassa.StatusUnpaid {
			t.Fatalf("a mainnet invoice was paid by simulation: %v", ok)
		}
	})
}
