package api_test

import (
	"strings"
	"testing"
	"time"

	"github.com/kassapay/kassa/store"
	"github.com/kassapay/kassa/store/storetest"
)

func TestCommerceAuthAndValidation(t *testing.T) {
	e, _ := newCommerceEnv(t, storetest.SQLiteConfig(t))
	s := e.newShopper()
	est := `{"customer_id":"c","items":[{"product_id":"B000000003","quantity":1}]}`
	tests := []struct {
		name              string
		method, path, bod string
		headers           map[string]string
		status            int
		code, param       string
	}{
		{"no key", "GET", "/api/commerce/search?q=milk", "", map[string]string{}, 401, "missing_credentials", ""},
		{"merchant key", "GET", "/api/commerce/search?q=milk", "", withKey(s.key), 403, "wrong_key_scope", ""},
		{"jwt", "GET", "/api/commerce/status", "", s.jwt(), 403, "wrong_key_scope", ""},
		{"bad jwt", "GET", "/api/commerce/status", "", map[string]string{"Authorization": "Bearer garbage"}, 401, "invalid_token", ""},
		{"invoice null customer", "POST", "/api/commerce/merchant/checkout/invoice", `{"customer_id":null,"estimateId":"00000000-0000-4000-8000-000000000000","addressId":"00000000-0000-4000-8000-000000000000"}`, nil, 400, "missing_param", "customer_id"},
		{"invoice empty customer", "POST", "/api/commerce/merchant/checkout/invoice", `{"customer_id":"","estimateId":"00000000-0000-4000-8000-000000000000","addressId":"00000000-0000-4000-8000-000000000000"}`, nil, 400, "missing_param", "customer_id"},
		{"bad wallet filter", "GET", "/api/commerce/merchant/orders?wallet=0x12", "", nil, 400, "invalid_address", "wallet"},
		{"bad jwt beside a key", "GET", "/api/commerce/status", "", map[string]string{"Authorization": "Bearer garbage", "X-Commerce-Api-Key": s.ckey}, 401, "invalid_token", ""},
		{"bad key", "GET", "/api/commerce/search?q=milk", "", map[string]string{"X-Commerce-Api-Key": "kassa_devnet_commerce_nope"}, 401, "invalid_api_key", ""},
		{"q missing", "GET", "/api/commerce/search", "", nil, 400, "missing_param", "q"},
		{"q too long", "GET", "/api/commerce/search?q=" + strings.Repeat("a", 201), "", nil, 400, "invalid_query", "q"},
		{"page 0", "GET", "/api/commerce/search?q=milk&page=0", "", nil, 400, "invalid_page", "page"},
		{"page 101", "GET", "/api/commerce/search?q=milk&page=101", "", nil, 400, "invalid_page", "page"},
		{"limit 51", "GET", "/api/commerce/search?q=milk&limit=51", "", nil, 400, "invalid_limit", "limit"},
		{"unknown retailer", "GET", "/api/commerce/search?q=milk&retailer=ebay", "", nil, 400, "invalid_retailer", "retailer"},
		{"unsupported retailer", "GET", "/api/commerce/search?q=milk&retailer=shopify", "", nil, 400, "retailer_not_supported", "retailer"},
		{"negative price", "GET", "/api/commerce/search?q=milk&minPrice=-1", "", nil, 400, "invalid_min_price", "minPrice"},
		{"price text", "GET", "/api/commerce/search?q=milk&maxPrice=abc", "", nil, 400, "invalid_max_price", "maxPrice"},
		{"price range", "GET", "/api/commerce/search?q=milk&minPrice=10&maxPrice=5", "", nil, 400, "invalid_price_range", "minPrice"},
		{"no items", "POST", "/api/commerce/merchant/checkout/estimate", `{"customer_id":"c"}`, nil, 400, "missing_param", "items"},
		{"empty cart", "POST", "/api/commerce/merchant/checkout/estimate", `{"customer_id":"c","items":[]}`, nil, 400, "empty_cart", "items"},
		{"no buyer", "POST", "/api/commerce/merchant/checkout/estimate", `{"items":[{"product_id":"B000000003","quantity":1}]}`, nil, 400, "missing_param", "customer_id"},
		{"quantity 0", "POST", "/api/commerce/merchant/checkout/estimate", `{"customer_id":"c","items":[{"product_id":"B000000003","quantity":0}]}`, nil, 400, "invalid_quantity", "items[0].quantity"},
		{"quantity 100", "POST", "/api/commerce/merchant/checkout/estimate", `{"customer_id":"c","items":[{"product_id":"B000000003","quantity":100}]}`, nil, 400, "invalid_quantity", "items[0].quantity"},
		{"quantity text", "POST", "/api/commerce/merchant/checkout/estimate", `{"customer_id":"c","items":[{"product_id":"B000000003","quantity":"1"}]}`, nil, 400, "invalid_type", "items[0].quantity"},
		{"unknown product", "POST", "/api/commerce/merchant/checkout/estimate", `{"customer_id":"c","items":[{"product_id":"NOPE","quantity":1}]}`, nil, 400, "product_not_found", "items[0].product_id"},
		{"unknown field", "POST", "/api/commerce/merchant/checkout/estimate", `{"customer_id":"c","coupon":"x","items":[]}`, nil, 400, "unknown_parameter", "coupon"},
		{"bad wallet", "POST", "/api/commerce/merchant/checkout/estimate", `{"wallet_address":"0x12","wallet_network":"bsc","items":[{"product_id":"B000000003","quantity":1}]}`, nil, 400, "invalid_address", "wallet_address"},
		{"bad json", "POST", "/api/commerce/merchant/checkout/estimate", `{`, nil, 400, "invalid_json", ""},
		{"unknown estimate", "POST", "/api/commerce/merchant/checkout/address", `{"customer_id":"c","estimateId":"00000000-0000-4000-8000-000000000000","address":{}}`, nil, 400, "estimate_not_found", "estimateId"},
		{"invoice missing address", "POST", "/api/commerce/merchant/checkout/invoice", `{"customer_id":"c","estimateId":"00000000-0000-4000-8000-000000000000"}`, nil, 400, "missing_param", "addressId"},
		{"order id", "GET", "/api/commerce/merchant/orders/nope", "", nil, 400, "invalid_order_id", "orderId"},
		{"order missing", "GET", "/api/commerce/merchant/orders/00000000-0000-4000-8000-000000000000", "", nil, 404, "resource_missing", ""},
		{"cancel needs key", "POST", "/api/commerce/merchant/orders/00000000-0000-4000-8000-000000000000/cancel", `{}`, nil, 400, "idempotency_key_required", "Idempotency-Key"},
		{"simulate target", "POST", "/api/commerce/devnet/orders/00000000-0000-4000-8000-000000000000/simulate", `{"transitionTo":"lost"}`, nil, 400, "invalid_transition_target", "transitionTo"},
		{"simulate wallet", "POST", "/api/commerce/devnet/orders/00000000-0000-4000-8000-000000000000/simulate", `{"transitionTo":"payment_confirmed","walletNetwork":"bsc","walletAddress":"nope"}`, nil, 400, "invalid_address", "walletAddress"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := tt.headers
			if h == nil {
				h = map[string]string{"X-Commerce-Api-Key": s.ckey}
			}
			r := e.do(request{method: tt.method, path: tt.path, body: tt.bod, headers: h})
			expectError(t, r, tt.status, "", tt.code, tt.param)
			if r.obj(t)["success"] != false {
				t.Errorf("no success:false in %s", r.body)
			}
		})
	}
	// Mainnet: no simulation, and no retailer unless one is configured.
	mkey := s.createKey(`{"name":"live","scope":"commerce","environment":"mainnet"}`)["api_key"].(string)
	live := map[string]string{"X-Commerce-Api-Key": mkey}
	r := e.do(request{method: "POST", path: "/api/commerce/devnet/orders/00000000-0000-4000-8000-000000000000/simulate",
		body: `{"transitionTo":"shipped"}`, headers: live})
	expectError(t, r, 403, "permission_error", "devnet_only", "")
	r = e.do(request{method: "GET", path: "/api/commerce/search?q=milk", headers: live})
	expectError(t, r, 400, "invalid_request_error", "retailer_not_supported", "retailer")
	st := data(t, e.do(request{method: "GET", path: "/api/commerce/status", headers: live}))
	if st["enabled"] != true || st["networkEnvironment"] != "mainnet" || st["simulation"] != false {
		t.Errorf("status %v", st)
	}

	// A valid estimate with x-api-key carrying the commerce key works too, and
	// x-commerce-api-key is the commerce API's own when both are sent.
	r = e.do(request{method: "POST", path: "/api/commerce/merchant/checkout/estimate", body: est, headers: withKey(s.ckey)})
	expectStatus(t, r, 200)
	r = e.do(request{method: "GET", path: "/api/commerce/status",
		headers: map[string]string{"X-Api-Key": s.key, "X-Commerce-Api-Key": s.ckey}})
	expectStatus(t, r, 200)
	// Empty optional search filters are absent ones.
	r = e.do(request{method: "GET", path: "/api/commerce/search?q=milk&retailer=&minPrice=&maxPrice=",
		headers: map[string]string{"X-Commerce-Api-Key": s.ckey}})
	expectStatus(t, r, 200)
}

func TestCommerceCancel(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		e, clock := newCommerceEnv(t, cfg)
		s := e.newShopper()
		items := `[{"product_id":"B000000003","quantity":3}]`
		cancel := func(id, body string) *response {
			return s.call("POST", "/api/commerce/merchant/orders/"+id+"/cancel", body, "Idempotency-Key", newIdemKey())
		}

		// Unpaid: the invoice is canceled with the order; nothing is refunded.
		res := s.checkout(t, items, "")
		o := order(t, cancel(res["orderId"].(string), ""))
		if o["status"] != "cancelled" || o["cancellationStatus"] != "cancelled" || o["refundStatus"] != "NONE" {
			t.Fatalf("cancelled unpaid %v", o)
		}
		if inv := s.get("/api/v1/invoices/" + res["invoiceId"].(string)).obj(t); inv["status"] != "canceled" {
			t.Fatalf("invoice %v", inv["status"])
		}
		expectError(t, cancel(res["orderId"].(string), ""), 409, "conflict_error", "order_not_cancelable", "")

		// Paid: a refund of the total less the fee, to the given address.
		res = s.checkout(t, items, `,"refundDestinationWalletAddressBsc":"0x52908400098527886E0F7030069857D2E4169EE7"`)
		id := res["orderId"].(string)
		expectStatus(t, e.do(request{method: "POST", path: "/api/v1/devnet/invoices/" + res["invoiceId"].(string) + "/payments",
			headers: withKey(s.key)}), 201)
		o = order(t, cancel(id, `{"reason":"customer changed their mind"}`))
		rf := o["refund"].(map[string]any)
		total := o["totalAmountUsd"].(string)
		if o["status"] != "cancelled" || o["refundStatus"] != "PENDING" || rf["feeUsd"] != "0.75" ||
			rf["destinationWalletAddressBsc"] != "0x52908400098527886E0F7030069857D2E4169EE7" || total != "39.18" ||
			rf["amountUsd"] != "38.43" {
			t.Fatalf("cancelled paid %v", o)
		}
		q := o["refundQuote"].(map[string]any)
		if q["refundAmountUsd"] != "38.43" || q["refundToken"].(map[string]any)["symbol"] != "USDT" {
			t.Fatalf("quote %v", q)
		}
		// Devnet completes the refund by simulation.
		o = order(t, s.call("POST", "/api/commerce/devnet/orders/"+id+"/simulate", `{"transitionTo":"refunded"}`))
		if o["status"] != "refunded" || o["refundStatus"] != "REFUNDED" || o["refund"].(map[string]any)["txHash"] == nil {
			t.Fatalf("refunded %v", o)
		}

		// Simulating the payment alone pays the invoice and records the wallet named.
		res = s.checkout(t, items, "")
		id = res["orderId"].(string)
		sim := `{"transitionTo":"payment_confirmed","walletNetwork":"bsc","walletAddress":"0x52908400098527886E0F7030069857D2E4169EE7"}`
		o = order(t, s.call("POST", "/api/commerce/devnet/orders/"+id+"/simulate", sim))
		if o["status"] != "payment_confirmed" || o["walletNetwork"] != "bsc" || o["payment"].(map[string]any)["status"] != "paid" {
			t.Fatalf("simulated payment %v", o)
		}
		if inv := s.get("/api/v1/invoices/" + res["invoiceId"].(string)).obj(t); inv["status"] != "paid" {
			t.Fatalf("invoice after simulated payment: %v", inv["status"])
		}
		// Asking again for a stage devnet reaches by itself is no conflict; going back is.
		if o = order(t, s.call("POST", "/api/commerce/devnet/orders/"+id+"/simulate", sim)); o["status"] != "payment_confirmed" {
			t.Fatalf("again: %v", o["status"])
		}
		order(t, s.call("POST", "/api/commerce/devnet/orders/"+id+"/simulate", `{"transitionTo":"placed"}`))
		expectError(t, s.call("POST", "/api/commerce/devnet/orders/"+id+"/simulate", sim), 409, "conflict_error", "invalid_transition", "")
		expectError(t, s.call("POST", "/api/commerce/devnet/orders/"+id+"/simulate", `{"transitionTo":"placed"}`), 409,
			"conflict_error", "invalid_transition", "")

		// Placed: too late to cancel.
		clock.Advance(time.Second) // the newest order is newest by time, not by id
		res = s.checkout(t, items, "")
		id = res["orderId"].(string)
		order(t, s.call("POST", "/api/commerce/devnet/orders/"+id+"/simulate", `{"transitionTo":"placed"}`))
		expectError(t, cancel(id, ""), 409, "conflict_error", "order_not_cancelable", "")

		// Lists by customer, newest first.
		l := data(t, s.call("GET", "/api/commerce/merchant/orders?customer_id=cus_1&limit=2", ""))
		if l["has_more"] != true || len(l["data"].([]any)) != 2 || l["data"].([]any)[0].(map[string]any)["orderId"] != id {
			t.Fatalf("list %v", l)
		}
	})
}
