package api_test

import (
	"context"
	"math/big"
	"testing"
	"time"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/store"
	"github.com/kassapay/kassa/store/storetest"
)

// TestExpandPayments checks that latest_payment and payments show an invoice's
// receipts, newest first, with settlement fields, limited by payments_limit.
func TestExpandPayments(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		clock := storetest.NewClock(time.Now())
		e := newEnvClock(t, cfg, clock)
		m := e.newMerchant(false)
		id := m.createInvoice(`{"amount_usd": 10}`)["invoice_id"].(string)
		for _, hash := range []string{"0xaa", "0xbb"} {
			_, _, err := e.db.IngestPayment(context.Background(), kassa.PaymentInput{
				MerchantID: m.m.ID, InvoiceID: id, Network: "bsc-testnet", TxHash: hash, TokenID: 1,
				FromAddress: "0x52908400098527886E0F7030069857D2E4169EE7", AmountUnits: big.NewInt(4e18),
				AmountUSD: 4000, Confirmations: 3, Confirmed: true})
			if err != nil {
				t.Fatal(err)
			}
			clock.Advance(time.Second)
		}
		r := m.get("/api/v1/invoices/" + id + "?expand=latest_payment,payments&payments_limit=1")
		expectStatus(t, r, 200)
		inv := r.obj(t)
		latest, _ := inv["latest_payment"].(map[string]any)
		payments, _ := inv["payments"].([]any)
		if latest == nil || latest["object"] != "invoice_payment" || latest["tx_hash"] != "0xbb" ||
			latest["settlement_status"] != "pending" || latest["amount_usd"] != float64(4000) {
			t.Fatalf("latest_payment %v", inv["latest_payment"])
		}
		if len(payments) != 1 || payments[0].(map[string]any)["tx_hash"] != "0xbb" {
			t.Fatalf("payments %v", inv["payments"])
		}
		if inv["status"] != "underpaid" || inv["amount_paid"] != float64(8000) {
			t.Fatalf("invoice %s paid %v", inv["status"], inv["amount_paid"])
		}
		r = m.get("/api/v1/invoices?expand=payments")
		expectStatus(t, r, 200)
		data := r.obj(t)["data"].([]any)
		if got := data[0].(map[string]any)["payments"].([]any); len(got) != 2 {
			t.Fatalf("list payments %v", got)
		}
	})
}
