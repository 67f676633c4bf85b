package api_test

import (
	"strings"
	"testing"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/api"
	"github.com/kassapay/kassa/api/openapi/openapitest"
	"github.com/kassapay/kassa/store"
	"github.com/kassapay/kassa/store/storetest"
)

// wrong returns a credential the operation refuses with 403, nil when there is none.
func (sw *sweep) wrong(op openapitest.Operation) map[string]string {
	switch kindOf(op) {
	case "jwt", "ca":
		return withKey(sw.s.key) // jwt_required, wrong_key_scope
	case "ma", "ps+ma":
		return withKey(sw.s.ckey) // wrong_key_scope
	case "any":
		h := sw.plain.jwt()
		h["X-Environment"] = "mainnet" // mainnet_not_enabled
		return h
	case "ws":
		if strings.Contains(op.Path, "commerce") {
			return withKey(sw.s.key)
		}
		return withKey(sw.s.ckey)
	}
	return nil
}

// invalid returns a request the operation refuses with 400.
func (sw *sweep) invalid(op openapitest.Operation, path string) (string, map[string]string, string, bool) {
	kind, h := kindOf(op), sw.good(op)
	switch {
	case kind == "ma" || kind == "any" || kind == "ps+ma":
		h["X-Environment"] = "bogus"
		return path, h, "valid", true
	case kind == "ws":
		return path + "?since=evt_" + strings.Repeat("0", 32), h, "", true
	case op.Body:
		if op.ID == "cancelOrder" {
			h["Idempotency-Key"] = kassa.NewUUID()
		}
		return path, h, "not json", true
	case op.ID == "listApiKeys":
		return path + "?scope=bogus", h, "", true
	case op.ID == "listOrders":
		return path + "?limit=0", h, "", true
	case op.ID == "searchProducts":
		return strings.TrimSuffix(path, "?q=milk"), h, "", true
	case strings.Contains(op.Path, "{orderId}"):
		return strings.Replace(op.Path, "{orderId}", "not-a-uuid", 1), h, "", true
	}
	sw.t.Errorf("%s %s documents 400 but the sweep has no request for it", op.Method, op.Path)
	return "", nil, "", false
}

// TestOpenAPIOtherStatuses provokes the documented statuses the sweep and the
// feature tests do not: the document itself (200, 304), a resend (202, and 409 to
// a disabled endpoint), the payor's 410 on a canceled invoice, a quote on a
// server without deposit wallets (403),
// and a plain GET of the commerce stream (426).
func TestOpenAPIOtherStatuses(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		e, _ := newCommerceEnv(t, cfg)
		s := e.newShopper()

		doc := e.do(request{method: "GET", path: "/api/v1/openapi.json"})
		expectStatus(t, doc, 200)
		if doc.obj(t)["openapi"] != "3.1.0" || doc.header.Get("ETag") == "" {
			t.Fatalf("document: %s %.100s", doc.header, doc.body)
		}
		expectStatus(t, e.do(request{method: "GET", path: "/api/v1/openapi.json",
			headers: map[string]string{"If-None-Match": doc.header.Get("ETag")}}), 304)

		r := s.send("POST", "/api/v1/webhook-endpoints", `{"url": "https://hooks.example.com/k", "enabled_events": ["*"]}`)
		expectStatus(t, r, 201)
		endpoint := r.obj(t)["id"].(string)
		created := s.createInvoice(`{"amount_usd": 4, "questions": {"questions": [{"id": "size", "question": "Size?", "type": "text"}]}}`)
		evt := latestEventID(t, s.merchant)
		r = s.send("POST", "/api/v1/events/"+evt+"/resend", `{"endpoint_id": "`+endpoint+`"}`)
		expectStatus(t, r, 202)
		if data := r.obj(t)["data"].([]any); len(data) != 1 {
			t.Errorf("resend: %s", r.body)
		}
		expectStatus(t, s.send("PATCH", "/api/v1/webhook-endpoints/"+endpoint, `{"disabled": true}`), 200)
		r = s.send("POST", "/api/v1/events/"+evt+"/resend", `{"endpoint_id": "`+endpoint+`"}`)
		expectError(t, r, 409, "conflict_error", "endpoint_disabled", "")

		id, ps := created["invoice_id"].(string), session(created)
		expectStatus(t, s.send("POST", "/api/v1/invoices/"+id+"/cancel", ""), 200)
		for _, c := range []struct{ path, body string }{
			{"/api/v1/payments/payment-address", `{"token_id": 1}`},
			{"/api/v1/payments/submit-form", `{"responses": [{"question_id": "size", "response": "M"}]}`},
		} {
			r := e.do(request{method: "POST", path: c.path, body: c.body, headers: ps})
			expectError(t, r, 410, "invalid_request_error", "invoice_canceled", "")
		}
		r = e.do(request{method: "POST", path: "/api/v1/devnet/invoices/" + id + "/payments", body: `{}`, headers: withKey(s.key)})
		expectStatus(t, r, 201) // money sent to a canceled invoice is kept, for a person to handle
		// A server without deposit wallets cannot quote (payments_unavailable).
		bare := newEnvOn(t, e.db, nil, func(c *api.Config) { c.Pay = nil })
		ps = session(bare.newMerchant(false).createInvoice(`{"amount_usd": 4}`))
		r = bare.do(request{method: "POST", path: "/api/v1/payments/payment-address", body: `{"token_id": 1}`, headers: ps})
		expectError(t, r, 403, "permission_error", "payments_unavailable", "")

		streams := newStreamEnv(t, cfg, 16)
		ckey := streams.newMerchant(false).createKey(`{"scope": "commerce"}`)["api_key"].(string)
		r = streams.do(request{method: "GET", path: "/ws/commerce/events", headers: withKey(ckey)})
		expectError(t, r, 426, "invalid_request_error", "websocket_required", "")
	})
}
