package api_test

import (
	"context"
	"encoding/csv"
	"math/big"
	"net/url"
	"strings"
	"testing"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/store"
	"github.com/kassapay/kassa/store/storetest"
)

// csvRows parses a CSV answer into rows keyed by header.
func csvRows(t *testing.T, body string) []map[string]string {
	t.Helper()
	rows, err := csv.NewReader(strings.NewReader(body)).ReadAll()
	if err != nil || len(rows) == 0 {
		t.Fatalf("not CSV (%v):\n%s", err, body)
	}
	var out []map[string]string
	for _, r := range rows[1:] {
		m := map[string]string{}
		for i, h := range rows[0] {
			m[h] = r[i]
		}
		out = append(out, m)
	}
	return out
}

func TestReportsCSV(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		e := newEnv(t, cfg)
		m, other := e.newMerchant(false), e.newMerchant(false)
		inv := m.createInvoice(`{"amount_usd": 12.5, "description": "=cmd|' /C calc'!A0", "metadata": {"order": "A-7", "qty": 2}}`)
		id := inv["invoice_id"].(string)
		m.createInvoice(`{"amount_usd": 1}`)
		other.createInvoice(`{"amount_usd": 99, "description": "not yours"}`)
		if _, _, err := e.db.IngestPayment(context.Background(), kassa.PaymentInput{MerchantID: m.m.ID, InvoiceID: id,
			Network: "bsc-testnet", TxHash: "0xabc", TokenID: 1, FromAddress: "0x52908400098527886E0F7030069857D2E4169EE7",
			AmountUnits: bigUnits(5_000_000_000_000_000), AmountUSD: 5000, Confirmations: 3, Confirmed: true}); err != nil {
			t.Fatal(err)
		}

		r := e.do(request{method: "GET", path: "/api/v1/reports/invoices.csv?environment=devnet", headers: withKey(m.key)})
		expectStatus(t, r, 200)
		if ct := r.header.Get("Content-Type"); ct != "text/csv; charset=utf-8" || !strings.Contains(r.header.Get("Content-Disposition"), "invoices.csv") {
			t.Fatalf("headers %v", r.header)
		}
		rows := csvRows(t, string(r.body))
		if len(rows) != 2 {
			t.Fatalf("%d rows, want the merchant's 2:\n%s", len(rows), r.body)
		}
		got := rows[1] // newest first: the 12.50 invoice is older
		if got["invoice_id"] != id || got["amount_usd"] != "12.500" || got["amount_paid_usd"] != "5.000" || got["status"] != "underpaid" ||
			got["description"] != "'=cmd|' /C calc'!A0" || got["metadata.order"] != "A-7" || got["metadata.qty"] != "2" ||
			!strings.HasSuffix(got["created_at"], "Z") || !strings.Contains(got["created_at"], "T") {
			t.Fatalf("invoice row %v", got)
		}

		// The dashboard token authenticates too; payments: one row per payment.
		r = e.do(request{method: "GET", path: "/api/v1/reports/payments.csv", headers: m.jwt()})
		expectStatus(t, r, 200)
		pays := csvRows(t, string(r.body))
		if len(pays) != 1 || pays[0]["invoice_id"] != id || pays[0]["amount_usd"] != "5.000" || pays[0]["tx_hash"] != "0xabc" ||
			pays[0]["status"] != "underpaid" || pays[0]["metadata.order"] != "A-7" || pays[0]["amount_token_units"] != "5000000000000000" {
			t.Fatalf("payments %v", pays)
		}

		future := url.QueryEscape("2099-01-01T00:00:00Z")
		r = e.do(request{method: "GET", path: "/api/v1/reports/invoices.csv?created_gte=" + future, headers: withKey(m.key)})
		expectStatus(t, r, 200)
		if rows := csvRows(t, string(r.body)); len(rows) != 0 {
			t.Fatalf("rows after 2099: %v", rows)
		}
		r = e.do(request{method: "GET", path: "/api/v1/reports/invoices.csv?created_gte=yesterday", headers: withKey(m.key)})
		if expectStatus(t, r, 400); r.errorDetail(t)["param"] != "created_gte" {
			t.Fatalf("bad created_gte: %s", r.body)
		}
		r = e.do(request{method: "GET", path: "/api/v1/reports/invoices.csv?environment=moon", headers: withKey(m.key)})
		expectStatus(t, r, 400)
		expectStatus(t, e.do(request{method: "GET", path: "/api/v1/reports/payments.csv"}), 401)

		// The dashboard's downloads are the same files for the session's environment.
		b := e.browser()
		b.signIn(m)
		b.get("/dashboard/reports").want(t, 200, `href="/dashboard/reports/invoices.csv"`, `href="/dashboard/reports/payments.csv"`)
		p := b.get("/dashboard/reports/invoices.csv?created_gte=2000-01-01&created_lte=2099-12-31").want(t, 200, "metadata.order", "A-7")
		if strings.Contains(p.body, "not yours") || len(csvRows(t, p.body)) != 2 {
			t.Fatalf("dashboard invoices.csv:\n%s", p.body)
		}
		b.get("/dashboard/reports/payments.csv").want(t, 200, "0xabc")
		b.get("/dashboard/reports/other.csv").want(t, 404)
		b.get("/dashboard/reports?created_gte=tomorrow").want(t, 400)
	})
}

func bigUnits(n int64) *big.Int { return big.NewInt(n) }

// TestPaymentsCSVTokenColumns: payments.csv names each payment's token and gives
// its amount as a decimal in the token beside the base units, in two columns
// after the older ones (whose names and order stay), from the API and the
// dashboard alike.
func TestPaymentsCSVTokenColumns(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		e := newEnv(t, cfg)
		m := e.newMerchant(false)
		id := m.createInvoice(`{"amount_usd": 12.5, "metadata": {"order": "A-7"}}`)["invoice_id"].(string)
		// 2.5 USDT of bsc-testnet (token 1, 18 decimals).
		if _, _, err := e.db.IngestPayment(context.Background(), kassa.PaymentInput{MerchantID: m.m.ID, InvoiceID: id,
			Network: "bsc-testnet", TxHash: "0xabc", TokenID: 1, FromAddress: "0x52908400098527886E0F7030069857D2E4169EE7",
			AmountUnits: bigUnits(2_500_000_000_000_000_000), AmountUSD: 2500, Confirmations: 3, Confirmed: true}); err != nil {
			t.Fatal(err)
		}
		older := []string{"payment_id", "invoice_id", "seen_at", "confirmed_at", "status", "environment", "network",
			"token_id", "tx_hash", "log_index", "from_address", "amount_token_units", "amount_usd", "confirmations",
			"settlement_status", "settlement_tx_hash", "invoice_status", "invoice_created_at", "invoice_amount_usd", "customer_id"}
		want := append(append(older, "token_symbol", "amount_token", "type", "refund_id", "refund_address", "refund_reason"), "metadata.order")

		r := e.do(request{method: "GET", path: "/api/v1/reports/payments.csv", headers: withKey(m.key)})
		expectStatus(t, r, 200)
		b := e.browser()
		b.signIn(m)
		page := b.get("/dashboard/reports/payments.csv").want(t, 200, "0xabc")
		for name, body := range map[string]string{"API": string(r.body), "dashboard": page.body} {
			rows, err := csv.NewReader(strings.NewReader(body)).ReadAll()
			if err != nil || len(rows) != 2 {
				t.Fatalf("%s payments.csv (%v):\n%s", name, err, body)
			}
			if strings.Join(rows[0], ",") != strings.Join(want, ",") {
				t.Fatalf("%s header\n%v, want\n%v", name, rows[0], want)
			}
			got := csvRows(t, body)[0]
			if got["token_symbol"] != "USDT" || got["amount_token"] != "2.5" || got["amount_token_units"] != "2500000000000000000" {
				t.Fatalf("%s row %v", name, got)
			}
		}
	})
}
