package api_test

import (
	"net/url"
	"strconv"
	"testing"
	"time"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/store"
	"github.com/kassapay/kassa/store/storetest"
)

// seedInvoices creates n invoices of 1..n USD for the customer and returns their ids,
// newest first.
func seedInvoices(m *merchant, n int, customer string) []string {
	var out []string
	for i := 1; i <= n; i++ {
		body := `{"amount_usd": ` + strconv.Itoa(i) + `, "customer_id": "` + customer + `"}`
		out = append([]string{m.createInvoice(body)["invoice_id"].(string)}, out...)
	}
	return out
}

func TestInvoiceRetrieve(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		e := newEnv(t, cfg)
		m := e.newMerchant(false)
		id := m.createInvoice(`{"amount_usd": 3}`)["invoice_id"].(string)

		r := m.get("/api/v1/invoices/" + id)
		expectStatus(t, r, 200)
		inv := r.obj(t)
		if inv["id"] != id || inv["object"] != "invoice" || inv["amount"] != float64(3000) {
			t.Errorf("retrieve %s", r.body)
		}
		if _, ok := inv["payments"]; ok {
			t.Errorf("payments present without expand")
		}
		r = m.get("/api/v1/invoices/" + id + "?expand=latest_payment,payments&payments_limit=5")
		inv = r.obj(t)
		if v, ok := inv["latest_payment"]; !ok || v != nil {
			t.Errorf("latest_payment %v (present %v)", v, ok)
		}
		if p, ok := inv["payments"].([]any); !ok || len(p) != 0 {
			t.Errorf("payments %v", inv["payments"])
		}
		for _, q := range []string{"?expand=customer", "?expand=latest_payment,", "?expand=data.payments"} {
			expectError(t, m.get("/api/v1/invoices/"+id+q), 400, "invalid_request_error", "invalid_expand", "expand")
		}
		for _, q := range []string{"?payments_limit=0", "?payments_limit=101", "?payments_limit=x"} {
			expectError(t, m.get("/api/v1/invoices/"+id+q), 400, "invalid_request_error", "invalid_payments_limit", "payments_limit")
		}
		expectError(t, m.get("/api/v1/invoices/"+kassa.NewUUID()), 404, "not_found_error", "resource_missing", "")
		expectError(t, m.get("/api/v1/invoices/not-a-uuid"), 400, "invalid_request_error", "invalid_invoice_id", "invoiceId")
		expectError(t, m.get("/api/v1/invoices/not-a-uuid/status"), 400, "invalid_request_error", "invalid_invoice_id", "invoiceId")

		r = m.get("/api/v1/invoices/" + id + "/status")
		expectStatus(t, r, 200)
		st := r.obj(t)
		if st["object"] != "invoice_status" || st["id"] != id || st["status"] != "unpaid" || st["amount_paid"] != float64(0) ||
			st["amount_remaining"] != float64(3000) || st["amount_remaining_decimal"] != "3.000" || st["paid_at"] != nil || st["expires_at"] == nil {
			t.Errorf("status %s", r.body)
		}
		expectError(t, m.get("/api/v1/invoices/"+kassa.NewUUID()+"/status"), 404, "not_found_error", "resource_missing", "")
	})
}

func TestInvoiceList(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		e := newEnv(t, cfg)
		m := e.newMerchant(false)
		a := seedInvoices(m, 5, "alice")
		b := seedInvoices(m, 2, "bob")
		all := append(append([]string{}, b...), a...)

		sameIDs(t, ids(t, m.get("/api/v1/invoices")), all)
		r := m.get("/api/v1/invoices?limit=3")
		sameIDs(t, ids(t, r), all[:3])
		if r.obj(t)["has_more"] != true {
			t.Errorf("has_more false on a partial page")
		}
		sameIDs(t, ids(t, m.get("/api/v1/invoices?limit=3&starting_after="+all[2])), all[3:6])
		r = m.get("/api/v1/invoices?limit=3&starting_after=" + all[3])
		sameIDs(t, ids(t, r), all[4:7])
		if r.obj(t)["has_more"] != false {
			t.Errorf("has_more true on the last page")
		}
		sameIDs(t, ids(t, m.get("/api/v1/invoices?limit=2&ending_before="+all[4])), all[2:4])
		sameIDs(t, ids(t, m.get("/api/v1/invoices?customer_id=bob")), b)
		sameIDs(t, ids(t, m.get("/api/v1/invoices/customer/alice")), a)
		sameIDs(t, ids(t, m.get("/api/v1/invoices/customer/alice?limit=2&starting_after="+a[1])), a[2:4])
		sameIDs(t, ids(t, m.get("/api/v1/invoices/customer/nobody")), nil)
		sameIDs(t, ids(t, m.get("/api/v1/invoices?environment=devnet&invoice_type=standard&status=unpaid,underpaid")), all)
		sameIDs(t, ids(t, m.get("/api/v1/invoices?environment=mainnet")), nil)
		sameIDs(t, ids(t, m.get("/api/v1/invoices?status=paid")), nil)

		// Cancel one; the status filter sees it.
		r = e.do(request{method: "POST", path: "/api/v1/invoices/" + a[0] + "/cancel", headers: withKey(m.key)})
		expectStatus(t, r, 200)
		if r.obj(t)["status"] != "canceled" || r.obj(t)["id"] != a[0] {
			t.Errorf("cancel %s", r.body)
		}
		r = e.do(request{method: "POST", path: "/api/v1/invoices/" + a[0] + "/cancel", headers: withKey(m.key)})
		expectError(t, r, 409, "conflict_error", "invoice_not_cancelable", "")
		r = e.do(request{method: "POST", path: "/api/v1/invoices/" + kassa.NewUUID() + "/cancel", headers: withKey(m.key)})
		expectError(t, r, 404, "not_found_error", "resource_missing", "")
		sameIDs(t, ids(t, m.get("/api/v1/invoices?status=canceled")), a[:1])

		// Time filters: RFC 3339 and Unix seconds.
		future := url.QueryEscape(time.Now().Add(time.Hour).Format(time.RFC3339))
		sameIDs(t, ids(t, m.get("/api/v1/invoices?created_gte="+future)), nil)
		sameIDs(t, ids(t, m.get("/api/v1/invoices?created_lte="+future)), all)
		sameIDs(t, ids(t, m.get("/api/v1/invoices?created_gte=0")), all)

		// Expansions in lists.
		r = m.get("/api/v1/invoices?limit=1&expand=payments")
		first := r.obj(t)["data"].([]any)[0].(map[string]any)
		if p, ok := first["payments"].([]any); !ok || len(p) != 0 {
			t.Errorf("expanded list item %v", first)
		}

		for _, tc := range []struct{ query, code, param string }{
			{"limit=0", "invalid_limit", "limit"},
			{"limit=101", "invalid_limit", "limit"},
			{"limit=ten", "invalid_limit", "limit"},
			{"limit=1.5", "invalid_limit", "limit"},
			{"starting_after=abc", "invalid_cursor", "starting_after"},
			{"ending_before=abc", "invalid_cursor", "ending_before"},
			{"starting_after=" + a[0] + "&ending_before=" + a[1], "invalid_cursor", "ending_before"},
			{"starting_after=" + kassa.NewUUID(), "invalid_cursor", "starting_after"},
			{"status=paid,bogus", "invalid_status", "status"},
			{"status=paid,", "invalid_status", "status"},
			{"invoice_type=Standard!", "invalid_invoice_type", "invoice_type"},
			{"environment=testnet", "invalid_environment", "environment"},
			{"created_gte=yesterday", "invalid_timestamp", "created_gte"},
			{"created_lte=2024-13-01", "invalid_timestamp", "created_lte"},
			{"expand=everything", "invalid_expand", "expand"},
			{"payments_limit=0", "invalid_payments_limit", "payments_limit"},
		} {
			expectError(t, m.get("/api/v1/invoices?"+tc.query), 400, "invalid_request_error", tc.code, tc.param)
		}
		expectError(t, m.get("/api/v1/invoices/customer/alice?limit=0"), 400, "invalid_request_error", "invalid_limit", "limit")
		sameIDs(t, ids(t, m.get("/api/v1/invoices?colour=red")), all) // unknown params are ignored
	})
}

func TestInvoiceTotals(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		e := newEnv(t, cfg)
		m := e.newMerchant(false)
		a := seedInvoices(m, 3, "alice") // 1 + 2 + 3 USD
		seedInvoices(m, 1, "bob")        // 1 USD
		r := e.do(request{method: "POST", path: "/api/v1/invoices/" + a[0] + "/cancel", headers: withKey(m.key)})
		expectStatus(t, r, 200)

		r = m.get("/api/v1/invoices/totals")
		expectStatus(t, r, 200)
		tot := r.obj(t)
		if tot["object"] != "invoice_totals" || tot["currency"] != "usd" || tot["amount_unit"] != "usd_millis" ||
			tot["count"] != float64(4) || tot["amount"] != float64(7000) || tot["amount_decimal"] != "7.000" || tot["amount_paid"] != float64(0) {
			t.Errorf("totals %s", r.body)
		}
		by := tot["by_status"].(map[string]any)
		for _, s := range []string{"unpaid", "underpaid", "paid", "expired", "canceled"} {
			if _, ok := by[s].(map[string]any); !ok {
				t.Errorf("by_status lacks %s", s)
			}
		}
		if c := by["canceled"].(map[string]any); c["count"] != float64(1) || c["amount"] != float64(3000) || c["amount_decimal"] != "3.000" {
			t.Errorf("canceled %v", c)
		}
		if u := by["unpaid"].(map[string]any); u["count"] != float64(3) || u["amount"] != float64(4000) {
			t.Errorf("unpaid %v", u)
		}
		r = m.get("/api/v1/invoices/totals?customer_id=bob&environment=devnet&created_lte=" + url.QueryEscape(time.Now().Add(time.Hour).Format(time.RFC3339)))
		if tot := r.obj(t); tot["count"] != float64(1) || tot["amount"] != float64(1000) {
			t.Errorf("bob totals %s", r.body)
		}
		r = m.get("/api/v1/invoices/totals?environment=mainnet")
		if tot := r.obj(t); tot["count"] != float64(0) {
			t.Errorf("mainnet totals %s", r.body)
		}
		expectError(t, m.get("/api/v1/invoices/totals?environment=x"), 400, "invalid_request_error", "invalid_environment", "environment")
		expectError(t, m.get("/api/v1/invoices/totals?created_gte=x"), 400, "invalid_request_error", "invalid_timestamp", "created_gte")
	})
}

func TestTenancy(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		e := newEnv(t, cfg)
		a, b := e.newMerchant(false), e.newMerchant(false)
		id := a.createInvoice(`{"amount_usd": 1, "customer_id": "shared"}`)["invoice_id"].(string)
		b.createInvoice(`{"amount_usd": 2, "customer_id": "shared"}`)

		for _, path := range []string{"/api/v1/invoices/" + id, "/api/v1/invoices/" + id + "/status"} {
			expectError(t, b.get(path), 404, "not_found_error", "resource_missing", "")
		}
		r := e.do(request{method: "POST", path: "/api/v1/invoices/" + id + "/cancel", headers: withKey(b.key)})
		expectError(t, r, 404, "not_found_error", "resource_missing", "")
		if got := ids(t, b.get("/api/v1/invoices/customer/shared")); len(got) != 1 || got[0] == id {
			t.Errorf("b sees %v", got)
		}
		expectError(t, b.get("/api/v1/invoices?starting_after="+id), 400, "invalid_request_error", "invalid_cursor", "starting_after")
		if tot := b.get("/api/v1/invoices/totals").obj(t); tot["count"] != float64(1) {
			t.Errorf("b totals %v", tot)
		}
		var keys []map[string]any
		decodeArray(t, e.do(request{method: "GET", path: "/api/v1/api-keys", headers: a.jwt()}), &keys)
		r = e.do(request{method: "POST", path: "/api/v1/api-keys/" + keys[0]["key_id"].(string) + "/revoke", headers: b.jwt()})
		expectError(t, r, 404, "not_found_error", "resource_missing", "")
		expectStatus(t, a.get("/api/v1/invoices/"+id), 200) // a's key still works
	})
}
