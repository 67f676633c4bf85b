package api_test

import (
	"context"
	"encoding/json"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/store"
	"github.com/kassapay/kassa/store/storetest"
)

// session returns the payment session headers of a create response.
func session(created map[string]any) map[string]string {
	h := created["payment_session_headers"].(map[string]any)
	return map[string]string{"X-Session-Token": h["x-session-token"].(string), "X-Signature": h["x-signature"].(string)}
}

func TestPayorEndpoints(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		clock := storetest.NewClock(time.Now())
		e := newEnvClock(t, cfg, clock)
		m := e.newMerchant(false)
		created := m.createInvoice(`{"amount_usd": 10, "description": "Two mugs", "expires_in": 3600000,
			"payment_return_url": "https://shop.example/done", "metadata": {"secret": "merchant only"}}`)
		id, ps := created["invoice_id"].(string), session(created)
		get := func(path string, h map[string]string) *response {
			t.Helper()
			return e.do(request{method: "GET", path: path, headers: h})
		}

		r := get("/api/v1/payments/invoice", ps)
		expectStatus(t, r, 200)
		inv := r.obj(t)
		if inv["id"] != id || inv["amount"] != float64(10000) || inv["description"] != "Two mugs" ||
			inv["payment_return_url"] != "https://shop.example/done" || inv["metadata"] != nil || inv["merchant_id"] != nil {
			t.Fatalf("payor view %s", r.body)
		}
		flipped := "00" // a signature that differs from the real one in its first byte
		if strings.HasPrefix(ps["X-Signature"], flipped) {
			flipped = "ff"
		}
		bad := map[string]string{"X-Session-Token": ps["X-Session-Token"], "X-Signature": flipped + ps["X-Signature"][2:]}
		expectError(t, get("/api/v1/payments/invoice", bad), 401, "authentication_error", "invalid_session", "")
		expectError(t, get("/api/v1/payments/invoice", nil), 401, "authentication_error", "missing_session", "")
		expectError(t, get("/api/v1/payments/invoice", withKey(m.key)), 401, "authentication_error", "missing_session", "")

		r = get("/api/v1/payments/available-tokens", ps)
		expectStatus(t, r, 200)
		var tokens []map[string]any
		if err := json.Unmarshal(r.body, &tokens); err != nil || len(tokens) < 5 {
			t.Fatalf("available tokens %s", r.body)
		}
		for _, tok := range tokens {
			for _, k := range []string{"id", "token_symbol", "token_name", "token_type", "network", "token_decimals",
				"token_address", "requires_memo", "photo_uri", "has_settlement_route", "supports_stable_settlement",
				"is_monitored", "settlement_rate", "settlement_cost_usd", "is_same_token_settlement", "tier", "tier_fee",
				"availability_status", "rate_updated_at", "unavailable_reason"} {
				if _, ok := tok[k]; !ok {
					t.Fatalf("token %v lacks %s", tok["id"], k)
				}
			}
			if tok["availability_status"] != "AVAILABLE" || tok["settlement_rate"] == float64(0) {
				t.Errorf("token %v: %v at %v", tok["id"], tok["availability_status"], tok["settlement_rate"])
			}
		}
		if tokens[0]["token_type"] != "erc20" || tokens[0]["settlement_rate"] != float64(1) {
			t.Errorf("first token %v", tokens[0])
		}

		r = get("/api/v1/payments/customer-email", ps)
		expectStatus(t, r, 200)
		if v, ok := r.obj(t)["email"]; !ok || v != nil {
			t.Fatalf("unset email %s", r.body)
		}
		post := func(body string) *response {
			t.Helper()
			return e.do(request{method: "POST", path: "/api/v1/payments/customer-email", body: body, headers: ps})
		}
		r = post(`{"email": "payor@example.com"}`)
		expectStatus(t, r, 200)
		if got := r.obj(t); got["success"] != true || got["email"] != "payor@example.com" || got["message"] == "" {
			t.Fatalf("set email %s", r.body)
		}
		expectError(t, post(`{"email": "nope"}`), 400, "invalid_request_error", "invalid_email", "email")
		expectError(t, post(`{"mail": "x@example.com"}`), 400, "invalid_request_error", "unknown_parameter", "mail")

		// A payment shows in payment-status; once paid the email is refused.
		if _, _, err := e.db.IngestPayment(context.Background(), kassa.PaymentInput{MerchantID: m.m.ID, InvoiceID: id,
			Network: "bsc-testnet", TxHash: "0xaa", TokenID: 1, FromAddress: "0x52908400098527886E0F7030069857D2E4169EE7",
			AmountUnits: new(big.Int).Mul(big.NewInt(10), big.NewInt(1e18)), AmountUSD: 10000, Confirmations: 3, Confirmed: true}); err != nil {
			t.Fatal(err)
		}
		r = get("/api/v1/payments/payment-status", ps)
		expectStatus(t, r, 200)
		st := r.obj(t)
		payments, _ := st["payments"].([]any)
		if st["status"] != "paid" || st["amount_remaining"] != float64(0) || len(payments) != 1 ||
			payments[0].(map[string]any)["amount_token"] != "10" || payments[0].(map[string]any)["amount_token_units"] != "10000000000000000000" {
			t.Fatalf("payment status %s", r.body)
		}
		// The page shows "3/3 confirmations" and the receipt's date from these.
		if p := payments[0].(map[string]any); p["confirmations"] != float64(3) || p["confirmations_required"] != float64(3) {
			t.Errorf("confirmations %v of %v", p["confirmations"], p["confirmations_required"])
		}
		if at, _ := st["paid_at"].(string); at != kassa.FormatTime(clock.Now()) {
			t.Errorf("paid_at %q, want %s", at, kassa.FormatTime(clock.Now()))
		}
		expectError(t, post(`{"email": "late@example.com"}`), 400, "invalid_request_error", "invoice_paid", "email")

		// An expired invoice: 410 on the email; after the session's grace, 404.
		other := m.createInvoice(`{"amount_usd": 5, "expires_in": 1000}`)
		ops := session(other)
		clock.Advance(2 * time.Second)
		r = e.do(request{method: "POST", path: "/api/v1/payments/customer-email", body: `{"email": "a@example.com"}`, headers: ops})
		expectError(t, r, 410, "invalid_request_error", "invoice_expired", "")
		clock.Advance(kassa.SessionGrace)
		expectError(t, get("/api/v1/payments/invoice", ops), 404, "not_found_error", "session_not_found", "")
	})
}
