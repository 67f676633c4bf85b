package api_test

import (
	"net/url"
	"strings"
	"testing"

	"github.com/kassapay/kassa/store"
	"github.com/kassapay/kassa/store/storetest"
)

// TestRefundsHTTP: over HTTP (every exchange checked against the OpenAPI
// document), a refund to an address and one through a claim link on a paid
// invoice; Idempotency-Key required and replayed; more than paid is 400; the
// invoice's refunds newest first; a claim with a wrong token is 404, the right
// one gives the payor's address once (409 after) and answers no merchant-only
// field; cancel before sent; a wrong-token payment refunded in its own token; on
// mainnet an API key may not give an address.
func TestRefundsHTTP(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		e := newEnv(t, cfg)
		m := e.newMerchant(true)
		post := func(id, body, key string, h map[string]string) *response {
			t.Helper()
			if h == nil {
				h = withKey(m.key)
			}
			if key != "" {
				h["Idempotency-Key"] = key
			}
			return e.do(request{method: "POST", path: "/api/v1/invoices/" + id + "/refunds", body: body, headers: h})
		}
		inv := m.createInvoice(`{"amount_usd": 10}`)["invoice_id"].(string)
		expectError(t, post(inv, `{}`, newIdemKey(), nil), 409, "conflict_error", "nothing_to_refund", "")
		r := e.do(request{method: "POST", path: "/api/v1/devnet/invoices/" + inv + "/payments", body: `{"amount_usd": 10}`, headers: withKey(m.key)})
		expectStatus(t, r, 201)

		expectError(t, e.do(request{method: "POST", path: "/api/v1/invoices/" + inv + "/refunds", body: `{}`, headers: withKey(m.key)}),
			400, "invalid_request_error", "idempotency_key_required", "Idempotency-Key")
		key := newIdemKey()
		body := `{"amount_usd": 4, "address": "0x52908400098527886e0f7030069857d2e4169ee7", "reason": "returned"}`
		r = post(inv, body, key, nil)
		expectStatus(t, r, 201)
		first := r.obj(t)
		if first["status"] != "pending" || first["amount_usd"] != float64(4000) || first["address"] != "0x52908400098527886E0F7030069857D2E4169EE7" ||
			first["claim_url"] != nil || first["network"] != "bsc-testnet" || first["rate"] != "paid" {
			t.Fatalf("first refund %s", r.body)
		}
		again := post(inv, body, key, nil)
		expectStatus(t, again, 201)
		if string(again.body) != string(r.body) || again.header.Get("Idempotent-Replayed") != "true" {
			t.Fatalf("replay %s", again.body)
		}
		expectError(t, post(inv, `{"amount_usd": 6.001}`, newIdemKey(), nil), 400, "invalid_request_error", "refund_exceeds_paid", "amount_usd")
		expectError(t, post(inv, `{"amount_usd": 1, "amount_token_units": "1"}`, newIdemKey(), nil), 400, "invalid_request_error", "parameter_conflict", "amount_token_units")
		expectError(t, post(inv, `{"rate": "yesterday"}`, newIdemKey(), nil), 400, "invalid_request_error", "invalid_rate", "rate")
		expectError(t, post(inv, `{"address": "0x52908400098527886E0F7030069857D2E4169Ee7"}`, newIdemKey(), nil), 400, "invalid_request_error", "invalid_address_checksum", "address")
		expectError(t, post(inv, `{"amount_token_units": "1.5"}`, newIdemKey(), nil), 400, "invalid_request_error", "invalid_amount", "amount_token_units")

		r = post(inv, ``, newIdemKey(), nil)
		expectStatus(t, r, 201)
		claim := r.obj(t)
		link, _ := claim["claim_url"].(string)
		if claim["status"] != "awaiting_address" || claim["amount_usd"] != float64(6000) || claim["address"] != nil ||
			!strings.HasPrefix(link, "http://pay.test/refund/"+claim["id"].(string)+"?t=") {
			t.Fatalf("claim refund %s", r.body)
		}
		r = m.get("/api/v1/invoices/" + inv + "/refunds")
		expectStatus(t, r, 200)
		if !strings.HasPrefix(string(r.body), `[{"object":"refund","id":"`+claim["id"].(string)) || !strings.Contains(string(r.body), first["id"].(string)) {
			t.Fatalf("list %s", r.body)
		}
		r = m.get("/api/v1/refunds/" + claim["id"].(string))
		expectStatus(t, r, 200)
		if r.obj(t)["claim_url"] != link {
			t.Fatalf("get %s", r.body)
		}
		expectError(t, m.get("/api/v1/refunds/019a4b7f-0c11-7d2e-8f3a-5b6c7d8e9f01"), 404, "not_found_error", "resource_missing", "")

		// The payor's claim.
		u, err := url.Parse(link)
		if err != nil {
			t.Fatal(err)
		}
		claimPath := "/api/v1/refunds/" + claim["id"].(string) + "/claim"
		doClaim := func(token, address string) *response {
			return e.do(request{method: "POST", path: claimPath, body: `{"token": "` + token + `", "address": "` + address + `"}`})
		}
		expectError(t, doClaim("wrong", "0x52908400098527886E0F7030069857D2E4169EE7"), 404, "not_found_error", "resource_missing", "")
		expectError(t, doClaim(u.Query().Get("t"), "0x1234"), 400, "invalid_request_error", "invalid_address", "address")
		expectError(t, e.do(request{method: "POST", path: claimPath, body: `{"address": "0x52908400098527886E0F7030069857D2E4169EE7"}`}), 400, "invalid_request_error", "missing_param", "token")
		r = doClaim(u.Query().Get("t"), "0xde709f2102306220921060314715629080e2fb77")
		expectStatus(t, r, 200)
		got := r.obj(t)
		if got["status"] != "pending" || got["address"] != "0xde709f2102306220921060314715629080e2fb77" {
			t.Fatalf("claimed %s", r.body)
		}
		for _, f := range []string{"claim_url", "reason", "payment_id", "failure_reason"} {
			if _, ok := got[f]; ok {
				t.Errorf("the payor's view has %s: %s", f, r.body)
			}
		}
		expectError(t, doClaim(u.Query().Get("t"), "0x52908400098527886E0F7030069857D2E4169EE7"), 409, "conflict_error", "refund_claimed", "")

		// Cancel before sent.
		r = e.do(request{method: "POST", path: "/api/v1/refunds/" + first["id"].(string) + "/cancel", headers: withKey(m.key)})
		expectStatus(t, r, 200)
		if r.obj(t)["status"] != "canceled" {
			t.Fatalf("canceled %s", r.body)
		}
		expectError(t, e.do(request{method: "POST", path: "/api/v1/refunds/" + first["id"].(string) + "/cancel", headers: withKey(m.key)}),
			409, "conflict_error", "refund_not_cancelable", "")

		// A wrong-token payment, refunded in its own token.
		open := m.createInvoice(`{"amount_usd": 10}`)["invoice_id"].(string)
		e.do(request{method: "POST", path: "/api/v1/devnet/invoices/" + open + "/payments", body: `{"amount_usd": 4}`, headers: withKey(m.key)})
		r = e.do(request{method: "POST", path: "/api/v1/devnet/invoices/" + open + "/payments",
			body: `{"token_id": 3, "amount_usd": 2, "tx_hash": "0x` + strings.Repeat("cd", 32) + `"}`, headers: withKey(m.key)})
		expectStatus(t, r, 201)
		wrong := r.obj(t)["payment"].(map[string]any)
		r = post(open, `{"payment_id": "`+wrong["id"].(string)+`", "address": "0x52908400098527886E0F7030069857D2E4169EE7"}`, newIdemKey(), nil)
		expectStatus(t, r, 201)
		if got := r.obj(t); got["token_id"] != float64(3) || got["amount_token_units"] != wrong["amount_token_units"] || got["payment_id"] != wrong["id"] {
			t.Fatalf("wrong-token refund %s", r.body)
		}

		// Mainnet: an API key may not name the address; a dashboard session may.
		mk := m.createKey(`{"name": "live", "environment": "mainnet"}`)["api_key"].(string)
		h := m.jwt()
		h["X-Environment"] = "mainnet"
		h["Idempotency-Key"] = newIdemKey()
		r = e.do(request{method: "POST", path: "/api/v1/invoices", body: `{"amount_usd": 1}`, headers: h})
		expectStatus(t, r, 201)
		live := r.obj(t)["invoice_id"].(string)
		expectError(t, post(live, `{"address": "0x52908400098527886E0F7030069857D2E4169EE7"}`, newIdemKey(), withKey(mk)),
			403, "permission_error", "refund_address_needs_dashboard", "")
		h = m.jwt()
		h["X-Environment"] = "mainnet"
		expectError(t, post(live, `{"address": "0x52908400098527886E0F7030069857D2E4169EE7"}`, newIdemKey(), h),
			409, "conflict_error", "nothing_to_refund", "")
	})
}
