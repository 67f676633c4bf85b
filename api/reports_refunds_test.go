package api_test

import (
	"context"
	"encoding/csv"
	"strings"
	"testing"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/store"
	"github.com/kassapay/kassa/store/storetest"
)

// TestReportsRefundRows: over HTTP from the API and the dashboard, payments.csv
// has a row per refund after the payment it follows (type refund, amounts
// negative, the refund's status, transfer and reason), every status alike: one
// confirmed, one pending, one canceled; refunds.csv lists the same refunds with
// positive amounts; a reason starting with "=" is guarded with ' while the
// negative amounts stay numbers; another merchant's refund and the other
// environment show nowhere. Both engines.
func TestReportsRefundRows(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		e := newEnv(t, cfg)
		m, other := e.newMerchant(false), e.newMerchant(false)
		refund := func(m *merchant, inv, body string) map[string]any {
			t.Helper()
			h := withKey(m.key)
			h["Idempotency-Key"] = newIdemKey()
			r := e.do(request{method: "POST", path: "/api/v1/invoices/" + inv + "/refunds", body: body, headers: h})
			expectStatus(t, r, 201)
			return r.obj(t)
		}
		pay := func(m *merchant, inv string) {
			t.Helper()
			expectStatus(t, e.do(request{method: "POST", path: "/api/v1/devnet/invoices/" + inv + "/payments",
				body: `{"amount_usd": 10}`, headers: withKey(m.key)}), 201)
		}
		inv := m.createInvoice(`{"amount_usd": 10, "customer_id": "cus_7", "metadata": {"order": "R-1"}}`)["invoice_id"].(string)
		pay(m, inv)
		const to = "0x52908400098527886E0F7030069857D2E4169EE7"
		confirmed := refund(m, inv, `{"amount_usd": 4, "address": "`+to+`", "reason": "=HYPERLINK(\"http://x.test\",\"ok\")"}`)
		// bsc-testnet has no watcher: the settlement worker completes a pending refund by simulation.
		if n, err := e.db.SimulateRefunds(context.Background(), kassa.Devnet, func(string) bool { return false },
			func(string) string { return "0xfeed" }); err != nil || n != 1 {
			t.Fatalf("simulated %d (%v)", n, err)
		}
		pending := refund(m, inv, `{"amount_usd": 1.5, "address": "`+to+`", "reason": "late delivery"}`)
		canceled := refund(m, inv, `{"amount_usd": 2, "address": "`+to+`"}`)
		expectStatus(t, e.do(request{method: "POST", path: "/api/v1/refunds/" + canceled["id"].(string) + "/cancel", headers: withKey(m.key)}), 200)
		theirs := other.createInvoice(`{"amount_usd": 10}`)["invoice_id"].(string)
		pay(other, theirs)
		refund(other, theirs, `{"address": "`+to+`", "reason": "not yours"}`)

		older := []string{"payment_id", "invoice_id", "seen_at", "confirmed_at", "status", "environment", "network",
			"token_id", "tx_hash", "log_index", "from_address", "amount_token_units", "amount_usd", "confirmations",
			"settlement_status", "settlement_tx_hash", "invoice_status", "invoice_created_at", "invoice_amount_usd", "customer_id",
			"token_symbol", "amount_token"}
		wantHeader := strings.Join(append(older, "type", "refund_id", "refund_address", "refund_reason", "metadata.order"), ",")
		type want struct {
			status, usd, units, token, tx, reason string
			ref                                   map[string]any
		}
		refunds := []want{
			{"confirmed", "4.000", confirmed["amount_token_units"].(string), "4", "0xfeed", `'=HYPERLINK("http://x.test","ok")`, confirmed},
			{"pending", "1.500", pending["amount_token_units"].(string), "1.5", "", "late delivery", pending},
			{"canceled", "2.000", canceled["amount_token_units"].(string), "2", "", "", canceled},
		}

		r := e.do(request{method: "GET", path: "/api/v1/reports/payments.csv?environment=devnet", headers: withKey(m.key)})
		expectStatus(t, r, 200)
		b := e.browser()
		b.signIn(m)
		b.get("/dashboard/reports").want(t, 200, `href="/dashboard/reports/refunds.csv"`)
		page := b.get("/dashboard/reports/payments.csv").want(t, 200, "0xfeed")
		for name, body := range map[string]string{"API": string(r.body), "dashboard": page.body} {
			rows, err := csv.NewReader(strings.NewReader(body)).ReadAll()
			if err != nil || strings.Join(rows[0], ",") != wantHeader {
				t.Fatalf("%s payments.csv header (%v)\n%v\nwant\n%s", name, err, rows[0], wantHeader)
			}
			got := csvRows(t, body)
			if len(got) != 4 || got[0]["type"] != "payment" || got[0]["amount_usd"] != "10.000" || got[0]["refund_id"] != "" {
				t.Fatalf("%s payments.csv: the payment first, then 3 refunds:\n%s", name, body)
			}
			for i, w := range refunds {
				row := got[1+i]
				if row["type"] != "refund" || row["refund_id"] != w.ref["id"] || row["status"] != w.status ||
					row["amount_usd"] != "-"+w.usd || row["amount_token_units"] != "-"+w.units ||
					row["amount_token"] != "-"+w.token || row["token_symbol"] != w.ref["token_symbol"] || row["tx_hash"] != w.tx ||
					row["refund_reason"] != w.reason || row["refund_address"] != to || row["invoice_id"] != inv ||
					row["payment_id"] != "" || row["customer_id"] != "cus_7" || row["metadata.order"] != "R-1" ||
					row["network"] != "bsc-testnet" || row["environment"] != "devnet" || row["seen_at"] != w.ref["created_at"] ||
					row["log_index"] != "" || row["confirmations"] != "" || row["settlement_status"] != "" {
					t.Fatalf("%s payments.csv refund row %d:\n%v\nwant %+v", name, i, row, w)
				}
				if (w.status == "confirmed") != (row["confirmed_at"] != "") {
					t.Fatalf("%s payments.csv: %s refund confirmed_at %q", name, w.status, row["confirmed_at"])
				}
			}
			if strings.Contains(body, "not yours") {
				t.Fatalf("%s payments.csv holds another merchant's refund", name)
			}
		}

		r = e.do(request{method: "GET", path: "/api/v1/reports/refunds.csv", headers: m.jwt()})
		expectStatus(t, r, 200)
		if !strings.Contains(r.header.Get("Content-Disposition"), "refunds.csv") {
			t.Fatalf("headers %v", r.header)
		}
		page = b.get("/dashboard/reports/refunds.csv?created_gte=2000-01-01").want(t, 200, "0xfeed")
		for name, body := range map[string]string{"API": string(r.body), "dashboard": page.body} {
			got := csvRows(t, body)
			if len(got) != 3 || strings.Contains(body, "not yours") {
				t.Fatalf("%s refunds.csv: the merchant's 3 refunds:\n%s", name, body)
			}
			for i, w := range refunds {
				row := got[i]
				if row["refund_id"] != w.ref["id"] || row["status"] != w.status || row["amount_usd"] != w.usd ||
					row["amount_token_units"] != w.units || row["amount_token"] != w.token || row["tx_hash"] != w.tx ||
					row["reason"] != w.reason || row["address"] != to || row["rate"] != "paid" || row["invoice_id"] != inv ||
					row["created_at"] != w.ref["created_at"] || row["metadata.order"] != "R-1" || row["invoice_status"] != "paid" {
					t.Fatalf("%s refunds.csv row %d:\n%v\nwant %+v", name, i, row, w)
				}
				if sent := row["sent_at"] != "" && row["confirmed_at"] != ""; sent != (w.status == "confirmed") {
					t.Fatalf("%s refunds.csv: %s refund sent %q confirmed %q", name, w.status, row["sent_at"], row["confirmed_at"])
				}
			}
		}

		// The other environment has none of them.
		r = e.do(request{method: "GET", path: "/api/v1/reports/refunds.csv?environment=mainnet", headers: withKey(m.key)})
		expectStatus(t, r, 200)
		if rows := csvRows(t, string(r.body)); len(rows) != 0 {
			t.Fatalf("mainnet refunds.csv: %v", rows)
		}
		r = e.do(request{method: "GET", path: "/api/v1/reports/payments.csv?environment=mainnet", headers: withKey(m.key)})
		expectStatus(t, r, 200)
		if rows := csvRows(t, string(r.body)); len(rows) != 0 {
			t.Fatalf("mainnet payments.csv: %v", rows)
		}
		expectStatus(t, e.do(request{method: "GET", path: "/api/v1/reports/refunds.csv"}), 401)
	})
}
