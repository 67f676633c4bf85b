package api_test

import (
	"strings"
	"testing"
	"time"

	"github.com/kassapay/kassa/store"
	"github.com/kassapay/kassa/store/storetest"
)

// TestAcceptAndDismissPayments: over HTTP (every exchange checked against the
// OpenAPI document), money paid after expiry is set aside as late and accepting
// it pays the invoice; money in another token is set aside as wrong_token and
// dismissing it leaves the invoice as it was; a second resolution is 409, and
// bad input is a 4xx with its code and param.
func TestAcceptAndDismissPayments(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		e := newEnvClock(t, cfg, storetest.NewClock(time.Now()))
		m := e.newMerchant(true)
		pay := func(id, body string) map[string]any {
			t.Helper()
			r := e.do(request{method: "POST", path: "/api/v1/devnet/invoices/" + id + "/payments", body: body, headers: withKey(m.key)})
			expectStatus(t, r, 201)
			return r.obj(t)["payment"].(map[string]any)
		}
		resolve := func(id, paymentID, how, body string) *response {
			t.Helper()
			return e.do(request{method: "POST", path: "/api/v1/invoices/" + id + "/payments/" + paymentID + "/" + how,
				body: body, headers: withKey(m.key)})
		}

		// Late: paid in full after expiry, then accepted.
		late := m.createInvoice(`{"amount_usd": 10, "expires_in": 1000}`)["invoice_id"].(string)
		e.clock.Advance(2 * time.Second)
		p := pay(late, `{"amount_usd": 10}`)
		if p["status"] != "manual_retry" || p["attention_reason"] != "late" || p["resolution"] != nil {
			t.Fatalf("late payment %v", p)
		}
		r := resolve(late, p["id"].(string), "accept", `{"note": "the payor's exchange was slow"}`)
		expectStatus(t, r, 200)
		if got := r.obj(t); got["status"] != "confirmed" || got["resolution"] != "accepted" ||
			got["resolution_note"] != "the payor's exchange was slow" || got["resolved_at"] == nil {
			t.Fatalf("accepted %s", r.body)
		}
		r = e.do(request{method: "GET", path: "/api/v1/invoices/" + late, headers: withKey(m.key)})
		expectStatus(t, r, 200)
		if inv := r.obj(t); inv["status"] != "paid" || inv["amount_paid"] != float64(10000) {
			t.Fatalf("invoice after accept %s", r.body)
		}
		expectError(t, resolve(late, p["id"].(string), "dismiss", ``), 409, "conflict_error", "payment_resolved", "")

		// Wrong token: USDT locked by the first payment, then tBNB; dismissed.
		open := m.createInvoice(`{"amount_usd": 10}`)["invoice_id"].(string)
		pay(open, `{"amount_usd": 4}`)
		wrong := pay(open, `{"token_id": 3, "amount_usd": 2, "tx_hash": "0x`+strings.Repeat("cd", 32)+`"}`)
		if wrong["status"] != "manual_retry" || wrong["attention_reason"] != "wrong_token" {
			t.Fatalf("wrong token %v", wrong)
		}
		r = resolve(open, wrong["id"].(string), "dismiss", ``)
		expectStatus(t, r, 200)
		if got := r.obj(t); got["status"] != "manual_retry" || got["resolution"] != "dismissed" || got["resolution_note"] != "" {
			t.Fatalf("dismissed %s", r.body)
		}
		r = e.do(request{method: "GET", path: "/api/v1/invoices/" + open + "?expand[]=payments", headers: withKey(m.key)})
		expectStatus(t, r, 200)
		if inv := r.obj(t); inv["status"] != "underpaid" || inv["amount_paid"] != float64(4000) {
			t.Fatalf("invoice after dismiss %s", r.body)
		}

		// Bad input.
		counted := pay(open, `{"amount_usd": 1}`)
		expectError(t, resolve(open, counted["id"].(string), "accept", ``), 409, "conflict_error", "payment_not_set_aside", "")
		expectError(t, resolve(open, "019a4b7f-0c11-7d2e-8f3a-5b6c7d8e9f01", "accept", ``), 404, "not_found_error", "resource_missing", "")
		expectError(t, resolve("nope", counted["id"].(string), "accept", ``), 400, "invalid_request_error", "invalid_invoice_id", "invoiceId")
		expectError(t, resolve(open, wrong["id"].(string), "accept", `{"note": 5}`), 400, "invalid_request_error", "invalid_type", "note")
		expectError(t, resolve(open, wrong["id"].(string), "accept", `{"note": "`+strings.Repeat("x", 256)+`"}`), 400, "invalid_request_error", "invalid_note", "note")
		expectError(t, resolve(open, wrong["id"].(string), "accept", `{"notes": "x"}`), 400, "invalid_request_error", "unknown_parameter", "notes")
	})
}
