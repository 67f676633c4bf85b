package store_test

import (
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/invoicing"
	"github.com/kassapay/kassa/payment"
	"github.com/kassapay/kassa/store"
	"github.com/kassapay/kassa/store/storetest"
)

// TestInvoiceSearch: the dashboard's q finds an invoice by id, customer id, a
// piece of the description (any case, % and _ literal), its deposit address (any
// case) or a payment's transaction hash, and only the merchant's own.
func TestInvoiceSearch(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		f := newFixture(t, cfg)
		str := func(s string) *string { return &s }
		mug := f.invoice(t, f.m, 10_000, func(c *kassa.InvoiceCreate) { c.Description = str("Blue MUG, 100% ceramic") })
		cust := f.invoice(t, f.m, 10_000, func(c *kassa.InvoiceCreate) { c.CustomerID = str("cust_42") })
		paid := f.invoice(t, f.m, 10_000, nil)
		const deposit = "0x52908400098527886E0F7030069857D2E4169EE7"
		_, _, err := f.db.LockPaymentAddress(f.ctx, payment.PaymentAddressRequest{MerchantID: f.m.ID, InvoiceID: paid.ID,
			Token:  kassa.Token{ID: 1, Network: "bsc-testnet", Decimals: 18},
			Derive: func(uint32) (string, error) { return deposit, nil },
			Quote: func(remaining kassa.Millis) (*big.Int, *big.Rat, time.Time, error) {
				return big.NewInt(int64(remaining)), big.NewRat(1, 1), f.clock.Now().Add(kassa.QuoteLock), nil
			}})
		must(t, err)
		hash := "0x" + strings.Repeat("ab", 32)
		f.pay(t, paid, hash, 1_000, true) // part paid: enough for a receipt
		other := f.merchant(t, "other@example.com")
		theirs := f.invoice(t, other, 10_000, func(c *kassa.InvoiceCreate) { c.Description = str("Blue mug too") })

		tests := []struct {
			q    string
			want []*kassa.Invoice
		}{
			{"blue mug", []*kassa.Invoice{mug}},
			{"100%", []*kassa.Invoice{mug}},
			{"1_0", nil},
			{"cust_42", []*kassa.Invoice{cust}},
			{"cust_4", nil}, // ids are exact
			{paid.ID, []*kassa.Invoice{paid}},
			{strings.ToLower(deposit), []*kassa.Invoice{paid}},
			{"  " + deposit + " ", []*kassa.Invoice{paid}},
			{strings.ToUpper(hash[2:]), nil},
			{"0x" + strings.ToUpper(hash[2:]), []*kassa.Invoice{paid}},
			{theirs.ID, nil},
		}
		for _, tt := range tests {
			got, _, err := f.db.Invoices(f.ctx, kassa.InvoiceFilter{MerchantID: f.m.ID, Query: tt.q, Limit: 10})
			must(t, err)
			if len(got) != len(tt.want) {
				t.Errorf("q %q found %d invoices, want %d", tt.q, len(got), len(tt.want))
				continue
			}
			for i := range got {
				if got[i].ID != tt.want[i].ID {
					t.Errorf("q %q found %s, want %s", tt.q, got[i].ID, tt.want[i].ID)
				}
			}
		}
	})
}

// TestInvoicesNeedingAttention: the dashboard's "needs attention" keeps underpaid
// invoices and those with money set aside (a payment on a canceled invoice is
// manual_retry), not unpaid or paid ones, nor another merchant's.
func TestInvoicesNeedingAttention(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		f := newFixture(t, cfg)
		f.invoice(t, f.m, 1_000, nil) // unpaid
		paid := f.invoice(t, f.m, 1_000, nil)
		f.pay(t, paid, "0x"+strings.Repeat("01", 32), 1_000, true)
		under := f.invoice(t, f.m, 1_000, nil)
		f.pay(t, under, "0x"+strings.Repeat("02", 32), 400, true)
		aside := f.invoice(t, f.m, 1_000, nil)
		_, err := invoicing.Over(f.db).CancelInvoice(f.ctx, principal(f.m), aside.ID)
		must(t, err)
		if r, _ := f.pay(t, aside, "0x"+strings.Repeat("03", 32), 1_000, true); r.Status != kassa.PaymentManualRetry {
			t.Fatalf("a payment on a canceled invoice is %s, want manual_retry", r.Status)
		}
		other := f.merchant(t, "other@example.com")
		theirs := f.invoice(t, other, 1_000, nil)
		f.pay(t, theirs, "0x"+strings.Repeat("04", 32), 400, true)

		got, _, err := f.db.Invoices(f.ctx, kassa.InvoiceFilter{MerchantID: f.m.ID, NeedsAttention: true, Limit: 10})
		must(t, err)
		ids := map[string]bool{}
		for _, inv := range got {
			ids[inv.ID] = true
		}
		if len(got) != 2 || !ids[aside.ID] || !ids[under.ID] { // same instant: no fixed order
			t.Fatalf("needing attention: %v, want the canceled one with money set aside and the underpaid one", ids)
		}
		if n, err := f.db.CountInvoices(f.ctx, kassa.InvoiceFilter{MerchantID: f.m.ID, NeedsAttention: true}); err != nil || n != 2 {
			t.Fatalf("counted %d needing attention (%v), want 2", n, err)
		}
	})
}
