package api_test

import (
	"bytes"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/store"
	"github.com/kassapay/kassa/store/storetest"
)

func TestInvoiceCreate(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		e := newEnv(t, cfg)
		m := e.newMerchant(false)
		before := time.Now().Add(-time.Second)
		body := m.createInvoice(`{
			"amount_usd": 49.99, "description": "Order 42", "customer_id": "cus_1",
			"metadata": {"order": "42", "tags": ["a", "b"]}, "expires_in": 3600000,
			"receiver_override_enable": true,
			"receiver_override_address": "0x52908400098527886E0F7030069857D2E4169EE7",
			"invoice_title": "Title", "invoice_footer": "Footer", "customer_email": "payer@example.com",
			"payment_return_url": "https://shop.example/done", "payment_return_url_enabled": true,
			"questions": {"questions": [{"id": "size", "question": "Size?", "type": "text", "validation": {"required": true}}]}
		}`)
		id, _ := body["invoice_id"].(string)
		if !kassa.ValidUUID(id) {
			t.Fatalf("invoice_id %v", body["invoice_id"])
		}
		token, sig := body["session_token"].(string), body["signature"].(string)
		if token == "" || sig != kassa.NewSessionSigner(testSecret).Sign(token) {
			t.Errorf("session %q signature %q", token, sig)
		}
		hdrs := body["payment_session_headers"].(map[string]any)
		if hdrs["x-session-token"] != token || hdrs["x-signature"] != sig {
			t.Errorf("payment_session_headers %v", hdrs)
		}
		u, err := url.Parse(body["payment_url"].(string))
		if err != nil || u.Scheme+"://"+u.Host+u.Path != "http://pay.test/pay/"+id ||
			u.Query().Get("session") != token || u.Query().Get("signature") != sig {
			t.Errorf("payment_url %v", body["payment_url"])
		}
		exp, ok := kassa.ParseTime(body["expires_at"].(string))
		if !ok || exp.Before(before.Add(time.Hour)) || exp.After(time.Now().Add(time.Hour+time.Second)) {
			t.Errorf("expires_at %v", body["expires_at"])
		}
		inv := body["invoice"].(map[string]any)
		want := map[string]any{
			"object": "invoice", "id": id, "merchant_id": float64(m.m.ID), "status": "unpaid",
			"invoice_type": "standard", "currency": "usd", "amount": float64(49990), "amount_decimal": "49.990",
			"amount_paid": float64(0), "amount_paid_decimal": "0.000", "amount_remaining": float64(49990),
			"amount_remaining_decimal": "49.990", "amount_unit": "usd_millis", "customer_id": "cus_1",
			"environment": "devnet", "description": "Order 42", "invoice_title": "Title", "invoice_footer": "Footer",
			"customer_email": "payer@example.com", "payment_return_url": "https://shop.example/done",
			"payment_return_url_enabled": true, "receiver_override_enabled": true,
			"payer_wallet_address": nil, "paid_at": nil, "commerce_order_id": nil,
		}
		for k, v := range want {
			if inv[k] != v {
				t.Errorf("invoice.%s = %v, want %v", k, inv[k], v)
			}
		}
		meta := inv["metadata"].(map[string]any)
		if meta["order"] != "42" {
			t.Errorf("metadata %v", meta)
		}
		if _, ok := inv["latest_payment"]; ok {
			t.Errorf("latest_payment present without expand")
		}
		// Defaults: the amount is rounded exactly, title and footer come from the merchant.
		inv = m.createInvoice(`{"amount_usd": 0.0105}`)["invoice"].(map[string]any)
		if inv["amount"] != float64(11) || inv["amount_decimal"] != "0.011" || inv["metadata"] == nil {
			t.Errorf("default invoice %v", inv)
		}
		inv = m.createInvoice(`{"amount_usd": 0.1}`)["invoice"].(map[string]any)
		if inv["amount"] != float64(100) {
			t.Errorf("0.1 → %v", inv["amount"])
		}
	})
}

func TestInvoiceCreateErrors(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		e := newEnv(t, cfg)
		m := e.newMerchant(false)
		for _, tc := range []struct{ name, body, code, param string }{
			{"too small", `{"amount_usd": 0.0099}`, "amount_out_of_range", "amount_usd"},
			{"too big", `{"amount_usd": 1000001}`, "amount_out_of_range", "amount_usd"},
			{"string amount", `{"amount_usd": "12"}`, "invalid_type", "amount_usd"},
			{"1e400", `{"amount_usd": 1e400}`, "amount_out_of_range", "amount_usd"},
			{"NaN", `{"amount_usd": NaN}`, "invalid_json", ""},
			{"missing amount", `{}`, "missing_param", "amount_usd"},
			{"unknown field", `{"amount_usd": 1, "amount": 1}`, "unknown_parameter", "amount"},
			{"bad description", `{"amount_usd": 1, "description": ["x"]}`, "invalid_type", "description"},
			{"long customer id", `{"amount_usd": 1, "customer_id": "` + strings.Repeat("c", 256) + `"}`, "customer_id_too_long", "customer_id"},
			{"metadata too large", `{"amount_usd": 1, "metadata": {"k": "` + strings.Repeat("x", 520) + `"}}`, "metadata_too_large", "metadata"},
			{"expires_in fraction", `{"amount_usd": 1, "expires_in": 1.5}`, "invalid_type", "expires_in"},
			{"expires_in too long", `{"amount_usd": 1, "expires_in": 2592000001}`, "expires_in_out_of_range", "expires_in"},
			{"http return url", `{"amount_usd": 1, "payment_return_url": "http://x.example"}`, "invalid_url", "payment_return_url"},
			{"bad email", `{"amount_usd": 1, "customer_email": "a@"}`, "invalid_email", "customer_email"},
			{"override no address", `{"amount_usd": 1, "receiver_override_enable": true}`, "missing_param", "receiver_override_address"},
			{"override bad checksum", `{"amount_usd": 1, "receiver_override_enable": true, "receiver_override_address": "0x52908400098527886e0F7030069857D2E4169EE7"}`, "invalid_address_checksum", "receiver_override_address"},
			{"six questions", `{"amount_usd": 1, "questions": {"questions": [` + strings.TrimSuffix(strings.Repeat(`{"id":"a","question":"Q","type":"text"},`, 6), ",") + `]}}`, "too_many_questions", "questions"},
			{"array body", `[1]`, "invalid_json", ""},
		} {
			t.Run(tc.name, func(t *testing.T) {
				r := m.postInvoice(tc.body, newIdemKey())
				expectError(t, r, 400, "invalid_request_error", tc.code, tc.param)
			})
		}
		h := withKey(m.key)
		h["Idempotency-Key"] = newIdemKey()
		h["Content-Type"] = "application/json"
		r := e.rawPost("/api/v1/invoices", []byte("{\"amount_usd\": 1, \"description\": \"\xff\"}"), h)
		expectError(t, r, 400, "invalid_request_error", "invalid_json", "")

		h["Content-Type"] = "text/plain"
		r = e.rawPost("/api/v1/invoices", []byte(`{"amount_usd": 1}`), h)
		expectError(t, r, 400, "invalid_request_error", "invalid_content_type", "")
		h["Content-Type"] = "application/json; charset=utf-8"
		r = e.rawPost("/api/v1/invoices", []byte(`{"amount_usd": 1}`), h)
		expectStatus(t, r, 201)

		big := append([]byte(`{"amount_usd": 1, "description": "`), bytes.Repeat([]byte("x"), 2<<20)...)
		big = append(big, `"}`...)
		h["Idempotency-Key"] = newIdemKey()
		r = e.rawPost("/api/v1/invoices", big, h)
		expectError(t, r, 413, "invalid_request_error", "body_too_large", "")

		for _, key := range []string{"", "not-a-uuid", strings.Repeat("k", 300)} {
			hk := withKey(m.key)
			hk["Idempotency-Key"] = key
			r := e.do(request{method: "POST", path: "/api/v1/invoices", body: `{"amount_usd": 1}`, headers: hk})
			if r.status != 400 || r.errorDetail(t)["param"] != "Idempotency-Key" {
				t.Errorf("Idempotency-Key %q: %d %s", key, r.status, r.body)
			}
		}
		r = m.postInvoice(`{"amount_usd": 1}`, "")
		expectError(t, r, 400, "invalid_request_error", "idempotency_key_required", "Idempotency-Key")
	})
}
