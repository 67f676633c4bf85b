package api_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/api"
	"github.com/kassapay/kassa/commerce"
	"github.com/kassapay/kassa/store"
	"github.com/kassapay/kassa/store/storetest"
)

// shelf is a tiny retailer for API tests: three products, no upstream.
type shelf struct{ products map[string]commerce.Product }

func newShelf() *shelf {
	ps := []commerce.Product{
		{ID: "B000000001", Title: "Organic Whole Milk 1 gal", Price: 5_490, Rating: 46, ReviewCount: 812, Fresh: true},
		{ID: "B000000002", Title: "Stainless Steel Water Bottle", Price: 24_990, Rating: 47, ReviewCount: 20_114},
		{ID: "B000000003", Title: "USB-C Charging Cable 2 m", Price: 9_990, Rating: 44, ReviewCount: 5_301},
	}
	s := &shelf{products: map[string]commerce.Product{}}
	for _, p := range ps {
		p.Retailer, p.Image, p.URL = commerce.RetailerAmazon, "https://img.test/"+p.ID+".jpg", "https://www.amazon.com/dp/"+p.ID
		s.products[p.ID] = p
	}
	return s
}

func (s *shelf) Name() string { return commerce.RetailerAmazon }
func (s *shelf) Search(_ context.Context, q commerce.SearchQuery) (*commerce.SearchPage, error) {
	page := &commerce.SearchPage{}
	for _, p := range s.products {
		if strings.Contains(strings.ToLower(p.Title), strings.ToLower(q.Query)) {
			page.Products = append(page.Products, p)
		}
	}
	page.TotalResults = len(page.Products)
	return page, nil
}
func (s *shelf) Product(_ context.Context, id string) (*commerce.Product, error) {
	p, ok := s.products[id]
	if !ok {
		return nil, kassa.NotFound("product")
	}
	return &p, nil
}
func (s *shelf) PriceCheck(_ context.Context, ids []string) (map[string]kassa.Millis, error) {
	out := map[string]kassa.Millis{}
	for _, id := range ids {
		if p, ok := s.products[id]; ok {
			out[id] = p.Price
		}
	}
	return out, nil
}
func (s *shelf) PlaceOrder(_ context.Context, o commerce.RetailerOrder) (*commerce.Placement, error) {
	return &commerce.Placement{RetailerOrderID: "shelf-" + o.OrderID}, nil
}
func (s *shelf) CancelOrder(context.Context, string) error { return nil }
func (s *shelf) Tracking(context.Context, string) ([]commerce.Shipment, error) {
	return nil, nil
}

// shelfCatalog serves the shelf on devnet only.
type shelfCatalog struct{ s *shelf }

func (c shelfCatalog) Retailer(env kassa.Environment, name string) (commerce.Retailer, error) {
	if err := commerce.CheckRetailer("retailer", name); err != nil {
		return nil, err
	}
	if env != kassa.Devnet || name != commerce.RetailerAmazon {
		return nil, kassa.Invalidf("retailer", "retailer_not_supported", "not here")
	}
	return c.s, nil
}
func (c shelfCatalog) Search(ctx context.Context, env kassa.Environment, q commerce.SearchQuery) (*commerce.SearchPage, error) {
	r, err := c.Retailer(env, q.Retailer)
	if err != nil {
		return nil, err
	}
	return r.Search(ctx, q)
}
func (c shelfCatalog) CacheStats() commerce.CacheStats { return commerce.CacheStats{} }

// withCommerce serves the commerce API over the test store and the shelf.
func withCommerce(db *store.DB, clock *storetest.Clock) envOption {
	return func(c *api.Config) {
		cat := shelfCatalog{newShelf()}
		svc := &commerce.Shop{Catalog: cat, Store: db, Payer: c.Pay}
		if clock != nil {
			svc.Now = clock.Now
		}
		c.Commerce, c.Catalog = svc, cat
	}
}

// newCommerceEnv serves the API with commerce over cfg, store and API sharing a clock.
func newCommerceEnv(t *testing.T, cfg store.Config) (*testEnv, *storetest.Clock) {
	t.Helper()
	clock := storetest.NewClock(time.Now())
	cfg.Now = clock.Now
	db := storetest.Open(t, cfg)
	return newEnvOn(t, db, clock, withCommerce(db, clock)), clock
}

// shopper is a merchant with a commerce key.
type shopper struct {
	*merchant
	ckey string
}

func (e *testEnv) newShopper() *shopper {
	e.t.Helper()
	m := e.newMerchant(true)
	return &shopper{merchant: m, ckey: m.createKey(`{"name":"shop","scope":"commerce"}`)["api_key"].(string)}
}

// call sends a commerce request with the commerce key in x-commerce-api-key.
func (s *shopper) call(method, path, body string, extra ...string) *response {
	s.e.t.Helper()
	h := map[string]string{"X-Commerce-Api-Key": s.ckey}
	for i := 0; i+1 < len(extra); i += 2 {
		h[extra[i]] = extra[i+1]
	}
	return s.e.do(request{method: method, path: path, body: body, headers: h})
}

// data returns the data of a {success: true, data} answer.
func data(t *testing.T, r *response) map[string]any {
	t.Helper()
	expectStatus(t, r, 200)
	body := r.obj(t)
	if body["success"] != true {
		t.Fatalf("success %v: %s", body["success"], r.body)
	}
	return body["data"].(map[string]any)
}

// checkout runs the three steps for one cart and returns the step 3 data.
func (s *shopper) checkout(t *testing.T, items string, extra string) map[string]any {
	t.Helper()
	est := data(t, s.call("POST", "/api/commerce/merchant/checkout/estimate",
		`{"customer_id":"cus_1","items":`+items+`}`))
	addr := data(t, s.call("POST", "/api/commerce/merchant/checkout/address", `{"customer_id":"cus_1","estimateId":"`+
		est["estimateId"].(string)+`","address":{"first_name":"ada","last_name":"LOVELACE","street_address":"12 main street apt 4b",
		"city":"san francisco","state":"california","zip_code":"941031234","country":"USA","phone":"(415) 555-0100","email":"ada@example.com"}}`))
	return data(t, s.call("POST", "/api/commerce/merchant/checkout/invoice", `{"customer_id":"cus_1","estimateId":"`+
		est["estimateId"].(string)+`","addressId":"`+addr["addressId"].(string)+`"`+extra+`}`))
}

func order(t *testing.T, r *response) map[string]any {
	t.Helper()
	return data(t, r)["order"].(map[string]any)
}

func TestCommerceCheckoutToDelivered(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		e, _ := newCommerceEnv(t, cfg)
		s := e.newShopper()

		// Step 1: prices from the retailer, cents exact.
		est := data(t, s.call("POST", "/api/commerce/merchant/checkout/estimate",
			`{"customer_id":"cus_1","items":[{"product_id":"B000000002","quantity":2,"retailer":"amazon"}]}`))
		if est["subtotal"] != 49.98 || est["shippingEstimate"] != 0.0 || est["tax"] != 4.12 ||
			est["commerceFee"] != 1.25 || est["total"] != 55.35 || est["currency"] != "usd" {
			t.Fatalf("estimate %v", est)
		}
		// Step 2: standardised.
		addr := data(t, s.call("POST", "/api/commerce/merchant/checkout/address", `{"customer_id":"cus_1","estimateId":"`+
			est["estimateId"].(string)+`","address":{"first_name":"ada","last_name":"LOVELACE","street_address":"12 main street apt 4b",
			"city":"san francisco","state":"california","zip_code":"941031234","country":"USA","phone":"(415) 555-0100"}}`))
		std := addr["standardized"].(map[string]any)
		if std["first_name"] != "Ada" || std["last_name"] != "Lovelace" || std["street_address"] != "12 Main St Apt 4B" ||
			std["state"] != "CA" || std["zip_code"] != "94103-1234" || std["country"] != "US" || std["phone"] != "+14155550100" ||
			addr["validated"] != true || len(addr["shippingOptions"].([]any)) != 3 {
			t.Fatalf("address %v", addr)
		}
		// Step 3, twice with one Idempotency-Key: one order.
		body := `{"customer_id":"cus_1","estimateId":"` + est["estimateId"].(string) + `","addressId":"` +
			addr["addressId"].(string) + `","webhookUrl":"https://ignored.example/hook","refundDestinationWalletAddressBsc":null}`
		key := newIdemKey()
		r1 := s.call("POST", "/api/commerce/merchant/checkout/invoice", body, "Idempotency-Key", key)
		r2 := s.call("POST", "/api/commerce/merchant/checkout/invoice", body, "Idempotency-Key", key)
		res := data(t, r1)
		if string(r1.body) != string(r2.body) || r2.header.Get("Idempotent-Replayed") != "true" {
			t.Fatalf("replay differs:\n%s\n%s", r1.body, r2.body)
		}
		orderID, invoiceID := res["orderId"].(string), res["invoiceId"].(string)
		eps := res["endpoints"].(map[string]any)
		if res["amount"] != 55.35 || res["networkEnvironment"] != "devnet" || res["customerId"] != "cus_1" ||
			eps["checkOrder"] != "/api/commerce/merchant/orders/"+orderID ||
			eps["checkPayment"] != "/api/commerce/merchant/payments/"+orderID+"/status" ||
			eps["cancelOrder"] != "/api/commerce/merchant/orders/"+orderID+"/cancel" ||
			!strings.Contains(res["invoiceUrl"].(string), "/pay/"+invoiceID+"?session=") {
			t.Fatalf("invoice result %v", res)
		}
		inv := s.get("/api/v1/invoices/" + invoiceID).obj(t)
		if inv["commerce_order_id"] != orderID || inv["amount"] != float64(55_350) {
			t.Fatalf("invoice %v", inv)
		}
		o := order(t, s.call("GET", eps["checkOrder"].(string), ""))
		if o["status"] != "pending_payment" || o["totalAmountUsd"] != "55.35" || o["commerceFeeUsd"] != "1.25" ||
			o["actions"].(map[string]any)["canCancel"] != true || o["refundStatus"] != "NONE" || o["cancellationStatus"] != "none" {
			t.Fatalf("order %v", o)
		}

		// Paying the invoice confirms the order by itself.
		pay := e.do(request{method: "POST", path: "/api/v1/devnet/invoices/" + invoiceID + "/payments", headers: withKey(s.key)})
		expectStatus(t, pay, 201)
		o = order(t, s.call("GET", eps["checkOrder"].(string), ""))
		pm := o["payment"].(map[string]any)
		if o["status"] != "payment_confirmed" || pm["status"] != "paid" || pm["txHash"] == nil || o["walletAddress"] == nil {
			t.Fatalf("after payment %v", o)
		}
		st := data(t, s.call("GET", eps["checkPayment"].(string), ""))
		if st["invoiceStatus"] != "paid" || st["amountRemainingUsd"] != "0.00" {
			t.Fatalf("payment status %v", st)
		}

		// Simulate to delivered: every stage between, in order.
		o = order(t, s.call("POST", "/api/commerce/devnet/orders/"+orderID+"/simulate",
			`{"transitionTo":"delivery_confirmed","tracking":{"carrier":"FedEx","trackingNumber":"7712","carrierTrackingUrl":"https://fedex.test/7712"}}`))
		var stages []string
		for _, te := range o["timeline"].([]any) {
			stages = append(stages, te.(map[string]any)["status"].(string))
		}
		if got := strings.Join(stages, ","); got != "pending_payment,payment_confirmed,payment_settled,placed,shipped,delivery_confirmed" {
			t.Fatalf("timeline %s", got)
		}
		ship := o["fulfillment"].(map[string]any)["shipments"].([]any)[0].(map[string]any)
		if ship["carrier"] != "FedEx" || ship["trackingNumber"] != "7712" || ship["deliveryStatus"] != "delivered" ||
			o["actions"].(map[string]any)["canCancel"] != false {
			t.Fatalf("delivered order %v", o)
		}
		// Nothing goes further; and every change was an event on the commerce feed.
		r := s.call("POST", "/api/commerce/devnet/orders/"+orderID+"/simulate", `{"transitionTo":"refunded"}`)
		expectError(t, r, 409, "conflict_error", "invalid_transition", "")
		if r.obj(t)["success"] != false {
			t.Errorf("commerce error without success false: %s", r.body)
		}
		evs := s.call("GET", "/api/v1/events?type=commerce.order.*&limit=100", "").obj(t)["data"].(map[string]any)["data"].([]any)
		// created, then one update per stage: confirmed, settled, placed, shipped, delivered.
		if len(evs) != 6 || evs[len(evs)-1].(map[string]any)["type"] != "commerce.order.created" {
			t.Fatalf("commerce events %v", evs)
		}
	})
}
