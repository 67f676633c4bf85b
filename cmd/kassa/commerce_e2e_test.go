package main

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/store"
	"github.com/kassapay/kassa/store/storetest"
)

// commerceCall sends a commerce request and returns the data of its envelope.
func commerceCall(t *testing.T, k *instance, method, path string, body any, extra ...string) map[string]any {
	t.Helper()
	h := map[string]string{"x-commerce-api-key": k.commerceKey}
	for i := 0; i+1 < len(extra); i += 2 {
		h[extra[i]] = extra[i+1]
	}
	var out struct {
		Success bool           `json:"success"`
		Data    map[string]any `json:"data"`
		Meta    map[string]any `json:"meta"`
	}
	resp := call(t, method, k.url+path, h, body, &out)
	wantStatus(t, resp, http.StatusOK)
	if !out.Success {
		t.Fatalf("%s %s: success false", method, path)
	}
	if out.Meta != nil {
		out.Data["_meta"] = out.Meta
	}
	return out.Data
}

// checkout runs the three checkout steps through the commerce API for quantity
// of product and returns the invoice step's data (orderId, invoiceId, invoiceUrl,
// endpoints).
func checkout(t *testing.T, k *instance, customer string, product any, quantity int) map[string]any {
	t.Helper()
	est := commerceCall(t, k, "POST", "/api/commerce/merchant/checkout/estimate", map[string]any{
		"customer_id": customer, "items": []any{map[string]any{"product_id": product, "quantity": quantity, "retailer": "amazon"}}})
	addr := commerceCall(t, k, "POST", "/api/commerce/merchant/checkout/address", map[string]any{
		"customer_id": customer, "estimateId": est["estimateId"], "address": map[string]any{
			"first_name": "grace", "last_name": "hopper", "street_address": "1 navy yard road", "city": "arlington",
			"state": "va", "zip_code": "22202", "country": "US"}})
	return commerceCall(t, k, "POST", "/api/commerce/merchant/checkout/invoice", map[string]any{
		"customer_id": customer, "estimateId": est["estimateId"], "addressId": addr["addressId"]},
		"Idempotency-Key", kassa.NewUUID())
}

// firstProduct is the id of the first product the catalog finds for "water bottle".
func firstProduct(t *testing.T, k *instance) any {
	t.Helper()
	return commerceCall(t, k, "GET", "/api/commerce/search?q=water+bottle&limit=1", nil)["products"].([]any)[0].(map[string]any)["productId"]
}

// TestCommerceEndToEnd runs the real binary on both engines: search the built-in
// catalog, check out in three steps, pay the invoice on devnet, watch the order
// confirm and settle by itself, simulate it to delivered; every change arrives on
// the commerce WebSocket stream and at a commerce webhook endpoint.
func TestCommerceEndToEnd(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		k := startKassa(t, cfg)
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()

		rcv := newReceiver(t)
		var ep struct{ ID, Secret string }
		wantStatus(t, call(t, "POST", k.url+"/api/v1/webhook-endpoints", map[string]string{"x-api-key": k.merchantKey},
			map[string]any{"url": rcv.srv.URL + "/hooks", "enabled_events": []string{"commerce.order.*"}}, &ep), 201)
		wh, err := standardwebhooks.NewWebhook(ep.Secret)
		if err != nil {
			t.Fatal(err)
		}
		rcv.wh = wh

		ws, _, err := websocket.Dial(ctx, strings.Replace(k.url, "http", "ws", 1)+"/ws/commerce/events",
			&websocket.DialOptions{HTTPHeader: http.Header{"X-Commerce-Api-Key": {k.commerceKey}}})
		if err != nil {
			t.Fatal(err)
		}
		defer ws.CloseNow()

		// Search twice: the second answer comes from the cache.
		found := commerceCall(t, k, "GET", "/api/commerce/search?q=water+bottle&limit=5", nil)
		again := commerceCall(t, k, "GET", "/api/commerce/search?q=water+bottle&limit=5", nil)
		products := found["products"].([]any)
		stats := again["_meta"].(map[string]any)["cacheStats"].(map[string]any)
		if len(products) != 5 || stats["hits"].(float64) < 1 || found["pagination"].(map[string]any)["totalResults"].(float64) < 5 {
			t.Fatalf("search %v / %v", found, stats)
		}
		product := products[0].(map[string]any)["productId"].(string)

		res := checkout(t, k, "cus_e2e", product, 2)
		orderID, invoiceID := res["orderId"].(string), res["invoiceId"].(string)
		orderPath := res["endpoints"].(map[string]any)["checkOrder"].(string)

		// Paying the invoice confirms the order; the settlement worker then settles it.
		wantStatus(t, call(t, "POST", k.url+"/api/v1/devnet/invoices/"+invoiceID+"/payments",
			map[string]string{"x-api-key": k.merchantKey}, nil, nil), 201)
		var o map[string]any
		for end := time.Now().Add(time.Minute); ; time.Sleep(100 * time.Millisecond) {
			o = commerceCall(t, k, "GET", orderPath, nil)["order"].(map[string]any)
			if o["status"] == "payment_settled" || time.Now().After(end) {
				break
			}
		}
		if o["status"] != "payment_settled" || o["payment"].(map[string]any)["settlement"].(map[string]any)["status"] != "settled" {
			t.Fatalf("order did not settle by itself: %v", o)
		}

		o = commerceCall(t, k, "POST", "/api/commerce/devnet/orders/"+orderID+"/simulate",
			map[string]any{"transitionTo": "delivery_confirmed", "tracking": map[string]any{"carrier": "UPS"}})["order"].(map[string]any)
		if o["status"] != "delivery_confirmed" || len(o["timeline"].([]any)) != 6 {
			t.Fatalf("simulated order %v", o)
		}

		// The stream carried the order's creation and each of its five changes.
		want := []string{"pending_payment", "payment_confirmed", "payment_settled", "placed", "shipped", "delivery_confirmed"}
		for i, status := range want {
			_, msg, err := ws.Read(ctx)
			if err != nil {
				t.Fatalf("stream: %v", err)
			}
			var ev struct {
				ID, Type string
				Data     struct {
					Object struct{ OrderID, Status string } `json:"object"`
				} `json:"data"`
			}
			if err := json.Unmarshal(msg, &ev); err != nil {
				t.Fatal(err)
			}
			wantType := "commerce.order.updated"
			if i == 0 {
				wantType = "commerce.order.created"
			}
			if ev.Type != wantType || ev.Data.Object.OrderID != orderID || ev.Data.Object.Status != status {
				t.Fatalf("frame %d: %s %s %s, want %s %s", i, ev.Type, ev.Data.Object.OrderID, ev.Data.Object.Status, wantType, status)
			}
			rcv.waitFor("webhook of "+ev.ID, func() bool { return rcv.acked[ev.ID] })
		}
		stopGracefully(t, k)
	})
}
