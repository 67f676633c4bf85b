package api_test

import (
	"net/url"
	"testing"

	"github.com/kassapay/kassa/store"
	"github.com/kassapay/kassa/store/storetest"
)

// eventPage returns the ids and types of an events list response and has_more.
func eventPage(t *testing.T, r *response) (ids, types []string, more bool) {
	t.Helper()
	expectStatus(t, r, 200)
	body := r.obj(t)
	if body["success"] != true {
		t.Fatalf("success %v, want true", body["success"])
	}
	data := body["data"].(map[string]any)
	if data["object"] != "list" {
		t.Fatalf("data.object %v, want list", data["object"])
	}
	for _, it := range data["data"].([]any) {
		e := it.(map[string]any)
		if e["object"] != "event" || e["api_version"] != "2026-11-01" {
			t.Fatalf("event shape: %v", e)
		}
		ids, types = append(ids, e["id"].(string)), append(types, e["type"].(string))
	}
	return ids, types, data["has_more"].(bool)
}

func TestEventsAPI(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		e := newEnv(t, cfg)
		m := e.newMerchant(false)
		inv := m.createInvoice(`{"amount_usd": 5}`)
		id := inv["invoice_id"].(string)
		r := e.do(request{method: "POST", path: "/api/v1/invoices/" + id + "/cancel", headers: withKey(m.key)})
		expectStatus(t, r, 200)

		// invoice.created, then invoice.canceled and invoice.updated: newest first.
		all, types, more := eventPage(t, m.get("/api/v1/events"))
		if len(all) != 3 || more || types[2] != "invoice.created" {
			t.Fatalf("events %v %v more=%v", all, types, more)
		}
		ev := m.get("/api/v1/events/" + all[2]).obj(t)
		obj := ev["data"].(map[string]any)["object"].(map[string]any)
		if obj["object"] != "invoice" || obj["id"] != id || obj["status"] != "unpaid" {
			t.Errorf("invoice.created data.object = %v", obj)
		}
		if _, ok := ev["created"].(float64); !ok {
			t.Errorf("created is not a number: %v", ev["created"])
		}

		page1, _, more := eventPage(t, m.get("/api/v1/events?limit=2"))
		if len(page1) != 2 || !more {
			t.Fatalf("limit 2: %v more=%v", page1, more)
		}
		page2, _, more := eventPage(t, m.get("/api/v1/events?limit=2&starting_after="+page1[1]))
		if len(page2) != 1 || more || page2[0] != all[2] {
			t.Fatalf("page 2: %v more=%v", page2, more)
		}
		back, _, more := eventPage(t, m.get("/api/v1/events?limit=1&ending_before="+page2[0]))
		if len(back) != 1 || !more || back[0] != all[1] {
			t.Fatalf("ending_before: %v more=%v", back, more)
		}
		_, types, _ = eventPage(t, m.get("/api/v1/events?type="+url.QueryEscape("invoice.canceled,invoice.created")))
		if len(types) != 2 {
			t.Errorf("type list: %v", types)
		}
		_, types, _ = eventPage(t, m.get("/api/v1/events?type=invoice.*"))
		if len(types) != 3 {
			t.Errorf("type wildcard: %v", types)
		}
		_, types, _ = eventPage(t, m.get("/api/v1/events?created_lte=2000-01-01T00:00:00Z"))
		if len(types) != 0 {
			t.Errorf("created_lte in the past: %v", types)
		}

		// A commerce key sees commerce.* events only; another merchant sees nothing.
		ck := m.createKey(`{"name":"c","scope":"commerce"}`)["api_key"].(string)
		got, _, _ := eventPage(t, e.do(request{method: "GET", path: "/api/v1/events",
			headers: map[string]string{"X-Commerce-Api-Key": ck}}))
		if len(got) != 0 {
			t.Errorf("commerce key sees %v", got)
		}
		expectError(t, e.do(request{method: "GET", path: "/api/v1/events/" + all[0],
			headers: map[string]string{"X-Commerce-Api-Key": ck}}), 404, "not_found_error", "resource_missing", "")
		other := e.newMerchant(false)
		got, _, _ = eventPage(t, other.get("/api/v1/events"))
		if len(got) != 0 {
			t.Errorf("other merchant sees %v", got)
		}
		expectError(t, other.get("/api/v1/events/"+all[0]), 404, "not_found_error", "resource_missing", "")
		expectError(t, other.get("/api/v1/events?starting_after="+all[0]), 400, "invalid_request_error", "invalid_cursor", "starting_after")
	})
}

func TestEventsAPIErrors(t *testing.T) {
	e := newEnv(t, storetest.SQLiteConfig(t))
	m := e.newMerchant(false)
	cases := []struct {
		query, code, param string
	}{
		{"limit=0", "invalid_limit", "limit"},
		{"limit=101", "invalid_limit", "limit"},
		{"limit=ten", "invalid_limit", "limit"},
		{"type=invoice.nope", "invalid_event_type", "type"},
		{"type=invoice.paid,,invoice.created", "invalid_event_type", "type"},
		{"starting_after=abc", "invalid_cursor", "starting_after"},
		{"ending_before=evt_00000000000000000000000000000000", "invalid_cursor", "ending_before"},
		{"starting_after=evt_00000000000000000000000000000000&ending_before=evt_00000000000000000000000000000000", "invalid_cursor", "ending_before"},
		{"created_gte=yesterday", "invalid_timestamp", "created_gte"},
	}
	for _, c := range cases {
		t.Run(c.query, func(t *testing.T) {
			expectError(t, m.get("/api/v1/events?"+c.query), 400, "invalid_request_error", c.code, c.param)
		})
	}
	expectError(t, e.do(request{method: "GET", path: "/api/v1/events"}), 401, "authentication_error", "missing_credentials", "")
	expectError(t, m.get("/api/v1/events/nope"), 404, "not_found_error", "resource_missing", "")
}
