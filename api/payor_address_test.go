package api_test

import (
	"strings"
	"testing"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/store"
	"github.com/kassapay/kassa/store/storetest"
)

func TestPaymentAddress(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		e := newEnv(t, cfg)
		m := e.newMerchant(false)
		created := m.createInvoice(`{"amount_usd": 10}`)
		id, ps := created["invoice_id"].(string), session(created)
		lock := func(body string) *response {
			t.Helper()
			return e.do(request{method: "POST", path: "/api/v1/payments/payment-address", body: body, headers: ps})
		}

		r := lock(`{"token_id": 1}`)
		expectStatus(t, r, 200)
		a := r.obj(t)
		addr, _ := a["address"].(string)
		if kassa.CheckEVMAddress("address", addr) != nil || a["network"] != "bsc-testnet" || a["chain_id"] != float64(97) ||
			a["amount_token"] != "10" || a["amount_token_units"] != "10000000000000000000" || a["token_symbol"] != "USDT" {
			t.Fatalf("payment address %s", r.body)
		}
		wantURI := "ethereum:" + a["token_address"].(string) + "@97/transfer?address=" + addr + "&uint256=10000000000000000000"
		if a["payment_uri"] != wantURI {
			t.Fatalf("payment_uri %v, want %s", a["payment_uri"], wantURI)
		}
		// Asking again gives the same address; another invoice gets another one.
		if again := lock(`{"token_id": 1}`).obj(t); again["address"] != addr {
			t.Fatalf("second ask gave %v, want %s", again["address"], addr)
		}
		other := session(m.createInvoice(`{"amount_usd": 1}`))
		r = e.do(request{method: "POST", path: "/api/v1/payments/payment-address", body: `{"token_id": 1}`, headers: other})
		expectStatus(t, r, 200)
		if r.obj(t)["address"] == addr {
			t.Fatal("two invoices share a deposit address")
		}
		// The payor view shows the lock; a partly paid invoice keeps it.
		if v := e.do(request{method: "GET", path: "/api/v1/payments/invoice", headers: ps}).obj(t); v["locked_token_id"] != float64(1) ||
			v["locked_network"] != "bsc-testnet" {
			t.Fatalf("locked token %v on %v", v["locked_token_id"], v["locked_network"])
		}
		r = e.do(request{method: "POST", path: "/api/v1/devnet/invoices/" + id + "/payments", body: `{"amount_usd": 4}`, headers: withKey(m.key)})
		expectStatus(t, r, 201)
		expectError(t, lock(`{"token_id": 2}`), 400, "invalid_request_error", "token_locked", "token_id")
		// Money in another token while partly paid is kept for a person, not counted.
		r = e.do(request{method: "POST", path: "/api/v1/devnet/invoices/" + id + "/payments", body: `{"amount_usd": 6, "token_id": 2}`, headers: withKey(m.key)})
		expectStatus(t, r, 201)
		if got := r.obj(t); got["payment"].(map[string]any)["status"] != "manual_retry" || got["invoice"].(map[string]any)["status"] != "underpaid" {
			t.Fatalf("wrong-token payment %s", r.body)
		}
		r = e.do(request{method: "GET", path: "/api/v1/payments/available-tokens", headers: ps})
		if !strings.HasPrefix(string(r.body), `[{"id":1,`) || strings.Count(string(r.body), `"id":`) != 1 {
			t.Fatalf("available tokens while underpaid: %s", r.body)
		}
		if a = lock(`{"token_id": 1}`).obj(t); a["amount_token"] != "6" || a["address"] != addr {
			t.Fatalf("quote for the rest %v", a)
		}

		for _, tc := range []struct{ name, body, code, param string }{
			{"missing", `{}`, "missing_param", "token_id"},
			{"unknown token", `{"token_id": 999}`, "invalid_token", "token_id"},
			{"other environment", `{"token_id": 101}`, "invalid_token", "token_id"},
			{"string id", `{"token_id": "1"}`, "invalid_type", "token_id"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				expectError(t, lock(tc.body), 400, "invalid_request_error", tc.code, tc.param)
			})
		}
		// A paid invoice takes no new address.
		e.do(request{method: "POST", path: "/api/v1/devnet/invoices/" + id + "/payments", headers: withKey(m.key)})
		expectError(t, lock(`{"token_id": 1}`), 409, "conflict_error", "invoice_paid", "")
	})
}

// TestPaymentAddressWaitsForAnswers: while a required question is unanswered no
// token can be chosen (409 answers_required on responses); optional questions
// never hold the payor back.
func TestPaymentAddressWaitsForAnswers(t *testing.T) {
	e := newEnv(t, storetest.SQLiteConfig(t))
	m := e.newMerchant(false)
	created := m.createInvoice(`{"amount_usd": 10, "questions": {"questions": [
		{"id": "size", "question": "Which size?", "type": "text", "validation": {"required": true}},
		{"id": "note", "question": "A note?", "type": "text", "validation": {"required": false}}]}}`)
	ps := session(created)
	lock := func(h map[string]string) *response {
		t.Helper()
		return e.do(request{method: "POST", path: "/api/v1/payments/payment-address", body: `{"token_id": 1}`, headers: h})
	}
	expectError(t, lock(ps), 409, "conflict_error", "answers_required", "responses")
	if v := e.do(request{method: "GET", path: "/api/v1/payments/invoice", headers: ps}).obj(t); v["locked_token_id"] != nil {
		t.Fatalf("refused, yet locked to %v", v["locked_token_id"])
	}
	// Answering only the optional question is refused by submit-form itself.
	r := e.do(request{method: "POST", path: "/api/v1/payments/submit-form", headers: ps,
		body: `{"responses": [{"question_id": "note", "response": "hi"}]}`})
	expectError(t, r, 400, "invalid_request_error", "missing_response", "responses")
	expectError(t, lock(ps), 409, "conflict_error", "answers_required", "responses")
	r = e.do(request{method: "POST", path: "/api/v1/payments/submit-form", headers: ps,
		body: `{"responses": [{"question_id": "size", "response": "L"}]}`})
	expectStatus(t, r, 200)
	expectStatus(t, lock(ps), 200)

	// Only optional questions: a token may be chosen without answering.
	optional := session(m.createInvoice(`{"amount_usd": 3, "questions": {"questions": [
		{"id": "note", "question": "A note?", "type": "text", "validation": {"required": false}}]}}`))
	expectStatus(t, lock(optional), 200)
}
