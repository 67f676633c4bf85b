package api_test

import (
	"context"
	"testing"
	"time"

	"github.com/kassapay/kassa/store"
	"github.com/kassapay/kassa/store/storetest"
)

const wallet = "0x52908400098527886E0F7030069857D2E4169EE7"

// TestCommerceWalletBuyer: an estimate made for a wallet, then step 3 with the
// required customer_id: the order (and its list) carries that customer, and its
// first timeline entry is its creation.
func TestCommerceWalletBuyer(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		e, _ := newCommerceEnv(t, cfg)
		s := e.newShopper()
		est := data(t, s.call("POST", "/api/commerce/merchant/checkout/estimate",
			`{"wallet_address":"`+wallet+`","wallet_network":"bsc","items":[{"product_id":"B000000003","quantity":1}]}`))
		addr := data(t, s.call("POST", "/api/commerce/merchant/checkout/address", `{"estimateId":"`+
			est["estimateId"].(string)+`","address":{"first_name":"Ada","last_name":"Lovelace","street_address":"12 Main St",
			"city":"Austin","state":"TX","zip_code":"78701","country":"US"}}`))
		res := data(t, s.call("POST", "/api/commerce/merchant/checkout/invoice", `{"customer_id":"cus_W","estimateId":"`+
			est["estimateId"].(string)+`","addressId":"`+addr["addressId"].(string)+`"}`))
		if res["customerId"] != "cus_W" {
			t.Fatalf("step 3 customerId %v", res["customerId"])
		}
		id := res["orderId"].(string)
		o := order(t, s.call("GET", "/api/commerce/merchant/orders/"+id, ""))
		if o["customerId"] != "cus_W" || o["walletAddress"] != wallet {
			t.Fatalf("order buyer %v %v", o["customerId"], o["walletAddress"])
		}
		if tl := o["timeline"].([]any); tl[0].(map[string]any)["timestamp"] != o["createdAt"] {
			t.Fatalf("first timeline entry %v, created %v", tl[0], o["createdAt"])
		}
		for _, q := range []string{"customer_id=cus_W", "customerId=cus_W", "wallet_address=" + wallet,
			"walletAddress=" + wallet, "wallet=" + wallet} {
			l := data(t, s.call("GET", "/api/commerce/merchant/orders?"+q, ""))
			if got := l["data"].([]any); len(got) != 1 || got[0].(map[string]any)["orderId"] != id {
				t.Errorf("%s: %v", q, l)
			}
		}
		if l := data(t, s.call("GET", "/api/commerce/merchant/orders?customer_id=someone_else", "")); len(l["data"].([]any)) != 0 {
			t.Errorf("other customer: %v", l)
		}
	})
}

// TestCommerceEndsBeforePayment: an order that fails or is cancelled by
// simulation before it is paid takes its invoice with it; an order whose
// invoice expires part paid owes that part back.
func TestCommerceEndsBeforePayment(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		e, clock := newCommerceEnv(t, cfg)
		s := e.newShopper()
		items := `[{"product_id":"B000000003","quantity":1}]`
		pay := func(invoiceID, body string) *response {
			return e.do(request{method: "POST", path: "/api/v1/devnet/invoices/" + invoiceID + "/payments",
				body: body, headers: withKey(s.key)})
		}
		simulate := func(id, to string) *response {
			return s.call("POST", "/api/commerce/devnet/orders/"+id+"/simulate", `{"transitionTo":"`+to+`"}`)
		}
		for _, to := range []string{"failed", "cancelled"} {
			res := s.checkout(t, items, "")
			o := order(t, simulate(res["orderId"].(string), to))
			if o["status"] != to || o["refundStatus"] != "NONE" || o["payment"].(map[string]any)["status"] != "canceled" ||
				o["actions"].(map[string]any)["canCancel"] != false {
				t.Fatalf("%s unpaid: %v", to, o)
			}
			if to == "failed" && o["substatus"] != "FAILED_BEFORE_PAYMENT" {
				t.Errorf("failed substatus %v", o["substatus"])
			}
			if inv := s.get("/api/v1/invoices/" + res["invoiceId"].(string)).obj(t); inv["status"] != "canceled" {
				t.Fatalf("%s: invoice %v", to, inv["status"])
			}
			// Money that still arrives is a late payment of a canceled invoice
			// (manual_retry), not a payment of the order.
			r := pay(res["invoiceId"].(string), "")
			expectStatus(t, r, 201)
			if p := r.obj(t)["payment"].(map[string]any); p["status"] != "manual_retry" {
				t.Fatalf("%s: late payment %v", to, p["status"])
			}
			if o := order(t, s.call("GET", "/api/commerce/merchant/orders/"+res["orderId"].(string), "")); o["status"] != to {
				t.Fatalf("%s: after a late payment %v", to, o["status"])
			}
			expectError(t, simulate(res["orderId"].(string), "refunded"), 409, "conflict_error", "invalid_transition", "")
		}

		// Money seen but not confirmed: the payment is pending and a cancel waits.
		res := s.checkout(t, items, "")
		expectStatus(t, pay(res["invoiceId"].(string), `{"status":"pending"}`), 201)
		o := order(t, s.call("GET", "/api/commerce/merchant/orders/"+res["orderId"].(string), ""))
		if o["payment"].(map[string]any)["status"] != "pending" || o["actions"].(map[string]any)["canCancel"] != false {
			t.Fatalf("pending payment %v", o)
		}
		expectError(t, s.call("POST", "/api/commerce/merchant/orders/"+res["orderId"].(string)+"/cancel", "",
			"Idempotency-Key", newIdemKey()), 409, "conflict_error", "payment_in_progress", "")

		// Part paid: cancel and simulated failure wait, canCancel says so; the
		// invoice expires and the part paid is owed back whole.
		res = s.checkout(t, items, "")
		id := res["orderId"].(string)
		expectStatus(t, pay(res["invoiceId"].(string), `{"amount_usd":10}`), 201)
		o = order(t, s.call("GET", "/api/commerce/merchant/orders/"+id, ""))
		if o["payment"].(map[string]any)["status"] != "underpaid" || o["actions"].(map[string]any)["canCancel"] != false {
			t.Fatalf("underpaid order %v", o)
		}
		expectError(t, simulate(id, "failed"), 409, "conflict_error", "payment_in_progress", "")
		clock.Advance(25 * time.Hour)
		if _, err := e.db.ExpireInvoices(context.Background(), 10); err != nil { // the sweeper's pass
			t.Fatal(err)
		}
		o = order(t, s.call("GET", "/api/commerce/merchant/orders/"+id, ""))
		rf := o["refund"].(map[string]any)
		if o["status"] != "cancelled" || o["substatus"] != "PAYMENT_EXPIRED" || o["refundStatus"] != "PENDING" ||
			rf["amountUsd"] != "10.00" || rf["feeUsd"] != "0.00" || rf["destinationWalletAddressBsc"] != wallet ||
			o["refundQuote"].(map[string]any)["refundAmountUsd"] != "10.00" {
			t.Fatalf("expired part paid %v", o)
		}
		o = order(t, simulate(id, "refunded"))
		if o["status"] != "refunded" || o["refundStatus"] != "REFUNDED" {
			t.Fatalf("refunded %v", o)
		}
	})
}
