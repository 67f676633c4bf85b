package api_test

import (
	"strings"
	"testing"
	"time"

	"github.com/kassapay/kassa/store"
	"github.com/kassapay/kassa/store/storetest"
)

func TestDevnetPayments(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		e := newEnvClock(t, cfg, storetest.NewClock(time.Now()))
		m := e.newMerchant(true)
		id := m.createInvoice(`{"amount_usd": 10}`)["invoice_id"].(string)
		path := "/api/v1/devnet/invoices/" + id + "/payments"
		post := func(body string) *response {
			t.Helper()
			return e.do(request{method: "POST", path: path, body: body, headers: withKey(m.key)})
		}
		hash := "0x" + strings.Repeat("ab", 32)

		// Part of it, seen but not confirmed; then the same transfer confirms.
		r := post(`{"amount_usd": 4, "status": "pending", "tx_hash": "` + hash + `"}`)
		expectStatus(t, r, 201)
		got := r.obj(t)
		inv, rec := got["invoice"].(map[string]any), got["payment"].(map[string]any)
		if rec["status"] != "pending" || inv["status"] != "unpaid" || inv["amount_pending"] != float64(4000) ||
			rec["amount_token_units"] != "4000000000000000000" || rec["network"] != "bsc-testnet" {
			t.Fatalf("pending payment %s", r.body)
		}
		r = post(`{"amount_usd": 4, "tx_hash": "` + hash + `"}`)
		expectStatus(t, r, 201)
		if inv = r.obj(t)["invoice"].(map[string]any); inv["status"] != "underpaid" || inv["amount_paid"] != float64(4000) {
			t.Fatalf("confirmed part %s", r.body)
		}
		// The rest, by default: what is still owed, confirmed.
		r = post(``)
		expectStatus(t, r, 201)
		if inv = r.obj(t)["invoice"].(map[string]any); inv["status"] != "paid" || inv["amount_paid"] != float64(10000) || inv["paid_at"] == nil {
			t.Fatalf("paid %s", r.body)
		}
		// A native coin is converted at its rate: 1 USD of tBNB at 600 USD.
		other := m.createInvoice(`{"amount_usd": 1}`)["invoice_id"].(string)
		r = e.do(request{method: "POST", path: "/api/v1/devnet/invoices/" + other + "/payments", body: `{"token_id": 3}`, headers: withKey(m.key)})
		expectStatus(t, r, 201)
		if rec = r.obj(t)["payment"].(map[string]any); rec["amount_token_units"] != "1666666666666667" {
			t.Fatalf("tBNB payment %s", r.body)
		}

		for _, tc := range []struct{ name, body, code, param string }{
			{"status", `{"status": "settled"}`, "invalid_status", "status"},
			{"token", `{"token_id": 101}`, "invalid_token", "token_id"},
			{"hash", `{"tx_hash": "0x12"}`, "invalid_tx_hash", "tx_hash"},
			{"amount", `{"amount_usd": "4"}`, "invalid_type", "amount_usd"},
			{"unknown", `{"from": "me"}`, "unknown_parameter", "from"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				expectError(t, post(tc.body), 400, "invalid_request_error", tc.code, tc.param)
			})
		}

		// Mainnet invoices cannot be paid this way.
		h := m.jwt()
		h["X-Environment"] = "mainnet"
		h["Idempotency-Key"] = newIdemKey()
		r = e.do(request{method: "POST", path: "/api/v1/invoices", body: `{"amount_usd": 1}`, headers: h})
		expectStatus(t, r, 201)
		mainnet := r.obj(t)["invoice_id"].(string)
		r = e.do(request{method: "POST", path: "/api/v1/devnet/invoices/" + mainnet + "/payments", headers: m.jwt()})
		expectError(t, r, 403, "permission_error", "devnet_only", "")
		// After the 24 h watch that follows expiry, nothing is simulated any more.
		short := m.createInvoice(`{"amount_usd": 1, "expires_in": 1000}`)["invoice_id"].(string)
		e.clock.Advance(25 * time.Hour)
		r = e.do(request{method: "POST", path: "/api/v1/devnet/invoices/" + short + "/payments", headers: withKey(m.key)})
		expectError(t, r, 409, "conflict_error", "watch_ended", "")

	})
}
