package commerce

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kassapay/kassa"
)

// fakeRetailer speaks the upstream wire format on loopback, with switchable faults.
type fakeRetailer struct {
	srv    *httptest.Server
	key    string
	fault  atomic.Value // "", "500", "503", "slow", "garbage", "400"
	faults atomic.Int64 // how many requests the fault applies to; <0 forever
	calls  atomic.Int64
	mu     sync.Mutex
	orders map[string]string // Idempotency-Key → order id
}

func newFakeRetailer(t *testing.T) *fakeRetailer {
	t.Helper()
	f := &fakeRetailer{key: "rk_test", orders: map[string]string{}}
	f.fault.Store("")
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeRetailer) setFault(kind string, n int64) { f.fault.Store(kind); f.faults.Store(n) }

func (f *fakeRetailer) serve(w http.ResponseWriter, r *http.Request) {
	f.calls.Add(1)
	if r.Header.Get("Authorization") != "Bearer "+f.key {
		http.Error(w, `{"error":"unauthorized"}`, http.StatusUnauthorized)
		return
	}
	if fault := f.fault.Load().(string); fault != "" && f.faults.Load() != 0 {
		f.faults.Add(-1)
		switch fault {
		case "500":
			http.Error(w, "boom: stack trace at line 42", 500)
		case "503":
			http.Error(w, "maintenance", http.StatusServiceUnavailable)
		case "400":
			http.Error(w, `{"error":"address undeliverable"}`, 400)
		case "slow":
			time.Sleep(300 * time.Millisecond)
			_, _ = w.Write([]byte(`{}`))
		case "garbage":
			_, _ = w.Write([]byte(`{"products": [{"id": 1`))
		}
		return
	}
	product := map[string]any{"id": "A1", "title": "Trail Running Shoes", "price": "89.99", "image": "https://img.test/A1.jpg",
		"rating": "4.6", "review_count": 1200, "fresh": false, "url": "https://retailer.test/A1"}
	switch {
	case r.Method == "GET" && r.URL.Path == "/v1/search":
		_ = json.NewEncoder(w).Encode(map[string]any{"products": []any{product}, "total": 41})
	case r.Method == "GET" && r.URL.Path == "/v1/products/A1":
		_ = json.NewEncoder(w).Encode(product)
	case r.Method == "GET" && strings.HasPrefix(r.URL.Path, "/v1/products/"):
		http.NotFound(w, r)
	case r.Method == "POST" && r.URL.Path == "/v1/prices":
		_ = json.NewEncoder(w).Encode(map[string]any{"prices": map[string]string{"A1": "89.99"}})
	case r.Method == "POST" && r.URL.Path == "/v1/orders":
		f.mu.Lock()
		key := r.Header.Get("Idempotency-Key")
		id, ok := f.orders[key]
		if !ok {
			id = "R-" + key[:8]
			f.orders[key] = id
		}
		f.mu.Unlock()
		_ = json.NewEncoder(w).Encode(map[string]string{"id": id})
	case r.Method == "GET" && strings.HasSuffix(r.URL.Path, "/tracking"):
		_ = json.NewEncoder(w).Encode(map[string]any{"shipments": []any{map[string]string{"id": "S1", "carrier": "UPS",
			"tracking_number": "1Z1", "tracking_url": "https://ups.test/1Z1", "status": "in_transit"}}})
	default:
		http.NotFound(w, r)
	}
}

func newTestUpstream(f *fakeRetailer, key string) *Upstream {
	return NewUpstream(UpstreamConfig{Name: RetailerAmazon, BaseURL: f.srv.URL, APIKey: key, Timeout: 100 * time.Millisecond})
}

func TestUpstreamSuccess(t *testing.T) {
	f := newFakeRetailer(t)
	u := newTestUpstream(f, f.key)
	ctx := context.Background()
	page, err := u.Search(ctx, SearchQuery{Query: "shoes", Page: 1, Limit: 20})
	if err != nil || page.TotalResults != 41 || len(page.Products) != 1 {
		t.Fatalf("search: %+v %v", page, err)
	}
	p := page.Products[0]
	if p.Price != 89_990 || p.Rating != 46 || p.Retailer != RetailerAmazon || p.ReviewCount != 1200 {
		t.Fatalf("product %+v", p)
	}
	if _, err := u.Product(ctx, "A1"); err != nil {
		t.Fatal(err)
	}
	if _, err := u.Product(ctx, "nope"); kassa.ErrorKindOf(err) != kassa.KindNotFound {
		t.Fatalf("missing product: %v", err)
	}
	prices, err := u.PriceCheck(ctx, []string{"A1", "B2"})
	if err != nil || prices["A1"] != 89_990 || len(prices) != 1 {
		t.Fatalf("prices %v %v", prices, err)
	}
	order := RetailerOrder{OrderID: "0193a1b2-0000-7000-8000-000000000001"}
	a, err := u.PlaceOrder(ctx, order)
	b, err2 := u.PlaceOrder(ctx, order)
	if err != nil || err2 != nil || a.RetailerOrderID != b.RetailerOrderID {
		t.Fatalf("placement not idempotent: %v %v %v %v", a, b, err, err2)
	}
	ships, err := u.Tracking(ctx, a.RetailerOrderID)
	if err != nil || len(ships) != 1 || ships[0].Carrier != "UPS" {
		t.Fatalf("tracking %v %v", ships, err)
	}
}

func TestUpstreamFaults(t *testing.T) {
	tests := []struct {
		name      string
		fault     string
		times     int64
		key       string
		code      string // "" : succeeds
		wantCalls int64
	}{
		{"one 500 then ok: a read is retried", "500", 1, "", "", 2},
		{"500 twice", "500", -1, "", "retailer_unavailable", 2},
		{"503", "503", -1, "", "retailer_unavailable", 2},
		{"timeout", "slow", -1, "", "retailer_unavailable", 2},
		{"malformed body", "garbage", -1, "", "retailer_unavailable", 2},
		{"400 is the request's fault", "400", -1, "", "retailer_rejected", 1},
		{"wrong key", "", 0, "wrong", "retailer_auth_failed", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFakeRetailer(t)
			f.setFault(tt.fault, tt.times)
			key := f.key
			if tt.key != "" {
				key = tt.key
			}
			_, err := newTestUpstream(f, key).Search(context.Background(), SearchQuery{Query: "x", Page: 1, Limit: 5})
			if kassa.ErrorCode(err) != tt.code {
				t.Fatalf("code %q, want %q (%v)", kassa.ErrorCode(err), tt.code, err)
			}
			if err != nil && strings.Contains(err.Error(), "stack trace") {
				t.Fatalf("upstream body leaked: %v", err)
			}
			if f.calls.Load() != tt.wantCalls {
				t.Fatalf("%d calls, want %d", f.calls.Load(), tt.wantCalls)
			}
		})
	}
	t.Run("the price check is a read: retried once", func(t *testing.T) {
		f := newFakeRetailer(t)
		f.setFault("503", 1)
		prices, err := newTestUpstream(f, f.key).PriceCheck(context.Background(), []string{"A1"})
		if err != nil || prices["A1"] != 89_990 || f.calls.Load() != 2 {
			t.Fatalf("%v %v after %d calls", prices, err, f.calls.Load())
		}
	})
	t.Run("placement is not retried on 503", func(t *testing.T) {
		f := newFakeRetailer(t)
		f.setFault("503", -1)
		_, err := newTestUpstream(f, f.key).PlaceOrder(context.Background(), RetailerOrder{OrderID: "0193a1b2-0000-7000-8000-000000000002"})
		if kassa.ErrorKindOf(err) != kassa.KindUnavailable || f.calls.Load() != 1 {
			t.Fatalf("%v after %d calls", err, f.calls.Load())
		}
	})
}
