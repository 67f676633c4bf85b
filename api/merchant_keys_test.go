package api_test

import (
	"strings"
	"testing"
	"time"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/store"
	"github.com/kassapay/kassa/store/storetest"
)

func TestAPIKeyCreate(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		e := newEnv(t, cfg)
		m := e.newMerchant(false)

		k := m.createKey(`{}`)
		if k["name"] != "API key" || k["scope"] != "merchant" || k["environment"] != "devnet" || k["expires_at"] != nil ||
			!strings.HasPrefix(k["api_key"].(string), "kassa_devnet_merchant_") || !kassa.ValidUUID(k["key_id"].(string)) {
			t.Errorf("default key %v", k)
		}
		r := e.do(request{method: "POST", path: "/api/v1/api-keys", headers: m.jwt()}) // no body at all
		expectStatus(t, r, 201)
		exp := time.Now().Add(48 * time.Hour).UTC().Truncate(time.Millisecond)
		k = m.createKey(`{"name":"Checkout","scope":"commerce","expires_at":"` + exp.Format(time.RFC3339Nano) + `"}`)
		if k["name"] != "Checkout" || k["scope"] != "commerce" || k["expires_at"] != kassa.FormatTime(exp) ||
			!strings.HasPrefix(k["api_key"].(string), "kassa_devnet_commerce_") {
			t.Errorf("named key %v", k)
		}
		m.createKey(`{"name":"` + strings.Repeat("n", 255) + `","expires_at":null}`)

		for _, tc := range []struct{ name, body, code, param string }{
			{"empty name", `{"name":""}`, "invalid_name", "name"},
			{"blank name", `{"name":"   "}`, "invalid_name", "name"},
			{"long name", `{"name":"` + strings.Repeat("n", 256) + `"}`, "invalid_name", "name"},
			{"number name", `{"name":5}`, "invalid_name", "name"},
			{"null name", `{"name":null}`, "invalid_name", "name"},
			{"control name", `{"name":"a\u0007b"}`, "invalid_name", "name"},
			{"bad scope", `{"scope":"admin"}`, "invalid_scope", "scope"},
			{"bad environment", `{"environment":"testnet"}`, "invalid_environment", "environment"},
			{"past expiry", `{"expires_at":"2001-01-01T00:00:00Z"}`, "invalid_expires_at", "expires_at"},
			{"unparsable expiry", `{"expires_at":"tomorrow"}`, "invalid_expires_at", "expires_at"},
			{"numeric expiry", `{"expires_at":1700000000}`, "invalid_expires_at", "expires_at"},
			{"unknown field", `{"name":"x","admin":true}`, "unknown_parameter", "admin"},
			{"not an object", `["x"]`, "invalid_json", ""},
		} {
			t.Run(tc.name, func(t *testing.T) {
				r := e.do(request{method: "POST", path: "/api/v1/api-keys", body: tc.body, headers: m.jwt()})
				expectError(t, r, 400, "invalid_request_error", tc.code, tc.param)
			})
		}
		r = e.do(request{method: "POST", path: "/api/v1/api-keys", body: `{"environment":"mainnet"}`, headers: m.jwt()})
		expectError(t, r, 403, "permission_error", "mainnet_not_enabled", "environment")
	})
}

func TestAPIKeyLimit(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		e := newEnv(t, cfg)
		m := e.newMerchant(false) // holds one merchant key already
		for i := 0; i < 9; i++ {
			m.createKey(`{}`)
		}
		r := e.do(request{method: "POST", path: "/api/v1/api-keys", body: `{}`, headers: m.jwt()})
		expectError(t, r, 403, "permission_error", "key_limit_reached", "")
		m.createKey(`{"scope":"commerce"}`) // the limit is per scope
		// Revoking one frees a slot.
		list := e.do(request{method: "GET", path: "/api/v1/api-keys?scope=merchant", headers: m.jwt()})
		var items []map[string]any
		decodeArray(t, list, &items)
		r = e.do(request{method: "POST", path: "/api/v1/api-keys/" + items[0]["key_id"].(string) + "/revoke", headers: m.jwt()})
		expectStatus(t, r, 200)
		m.createKey(`{}`)
	})
}

func TestAPIKeyListAndRevoke(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		e := newEnv(t, cfg)
		m := e.newMerchant(false)
		commerce := m.createKey(`{"name":"shop","scope":"commerce"}`)
		m.get("/api/v1/invoices") // uses the merchant key: last_used_at is set

		var all, merchantKeys, commerceKeys []map[string]any
		decodeArray(t, e.do(request{method: "GET", path: "/api/v1/api-keys", headers: m.jwt()}), &all)
		decodeArray(t, e.do(request{method: "GET", path: "/api/v1/api-keys?scope=merchant", headers: m.jwt()}), &merchantKeys)
		decodeArray(t, e.do(request{method: "GET", path: "/api/v1/api-keys?scope=commerce", headers: m.jwt()}), &commerceKeys)
		if len(all) != 2 || len(merchantKeys) != 1 || len(commerceKeys) != 1 || commerceKeys[0]["key_id"] != commerce["key_id"] {
			t.Fatalf("lists: all %d merchant %d commerce %d", len(all), len(merchantKeys), len(commerceKeys))
		}
		item := merchantKeys[0]
		for _, f := range []string{"key_id", "name", "scope", "environment", "status", "expires_at", "last_used_at", "created_at", "revoked_at", "revoked_reason"} {
			if _, ok := item[f]; !ok {
				t.Errorf("list item lacks %s: %v", f, item)
			}
		}
		if _, ok := item["api_key"]; ok {
			t.Errorf("list shows the secret")
		}
		if item["status"] != "active" || item["last_used_at"] == nil || item["revoked_at"] != nil {
			t.Errorf("item %v", item)
		}
		r := e.do(request{method: "GET", path: "/api/v1/api-keys?scope=admin", headers: m.jwt()})
		expectError(t, r, 400, "invalid_request_error", "invalid_scope", "scope")

		// Revoke with a reason; the key stops working at once.
		r = e.do(request{method: "POST", path: "/api/v1/api-keys/" + item["key_id"].(string) + "/revoke",
			body: `{"reason":"leaked"}`, headers: m.jwt()})
		expectStatus(t, r, 200)
		if r.obj(t)["message"] != "API key revoked." {
			t.Errorf("revoke body %s", r.body)
		}
		r = m.get("/api/v1/invoices")
		expectError(t, r, 401, "authentication_error", "api_key_revoked", "")
		decodeArray(t, e.do(request{method: "GET", path: "/api/v1/api-keys?scope=merchant", headers: m.jwt()}), &merchantKeys)
		if merchantKeys[0]["status"] != "revoked" || merchantKeys[0]["revoked_reason"] != "leaked" || merchantKeys[0]["revoked_at"] == nil {
			t.Errorf("revoked item %v", merchantKeys[0])
		}
		// Revoke without a body gets a default reason.
		r = e.do(request{method: "POST", path: "/api/v1/api-keys/" + commerce["key_id"].(string) + "/revoke", headers: m.jwt()})
		expectStatus(t, r, 200)
		decodeArray(t, e.do(request{method: "GET", path: "/api/v1/api-keys?scope=commerce", headers: m.jwt()}), &commerceKeys)
		if reason, _ := commerceKeys[0]["revoked_reason"].(string); reason == "" {
			t.Errorf("revoked without reason: %v", commerceKeys[0])
		}
		for _, id := range []string{kassa.NewUUID(), "not-a-uuid"} {
			r = e.do(request{method: "POST", path: "/api/v1/api-keys/" + id + "/revoke", headers: m.jwt()})
			expectError(t, r, 404, "not_found_error", "resource_missing", "")
		}
		r = e.do(request{method: "POST", path: "/api/v1/api-keys/" + commerce["key_id"].(string) + "/revoke",
			body: `{"why":"x"}`, headers: m.jwt()})
		expectError(t, r, 400, "invalid_request_error", "unknown_parameter", "why")
	})
}

func TestAPIKeyEndpointsNeedJWT(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		e := newEnv(t, cfg)
		m := e.newMerchant(false)
		for _, rq := range []request{
			{method: "GET", path: "/api/v1/api-keys"},
			{method: "POST", path: "/api/v1/api-keys", body: `{}`},
			{method: "POST", path: "/api/v1/api-keys/" + kassa.NewUUID() + "/revoke"},
			{method: "GET", path: "/api/v1/merchant"},
			{method: "PATCH", path: "/api/v1/merchant", body: `{}`},
		} {
			rq.headers = withKey(m.key)
			expectError(t, e.do(rq), 403, "permission_error", "jwt_required", "")
			rq.headers = nil
			expectError(t, e.do(rq), 401, "authentication_error", "missing_credentials", "")
			rq.headers = withKey("kassa_devnet_merchant_" + strings.Repeat("a", 52))
			expectError(t, e.do(rq), 401, "authentication_error", "invalid_api_key", "")
		}
	})
}

func TestAPIKeyExpiry(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		clock := storetest.NewClock(time.Now())
		e := newEnvClock(t, cfg, clock)
		m := e.newMerchant(false)
		k := m.createKey(`{"expires_at":"` + clock.Now().Add(time.Hour).Format(time.RFC3339) + `"}`)
		r := e.do(request{method: "GET", path: "/api/v1/invoices", headers: withKey(k["api_key"].(string))})
		expectStatus(t, r, 200)
		clock.Advance(2 * time.Hour)
		r = e.do(request{method: "GET", path: "/api/v1/invoices", headers: withKey(k["api_key"].(string))})
		expectError(t, r, 401, "authentication_error", "api_key_expired", "")
		var keys []map[string]any
		decodeArray(t, e.do(request{method: "GET", path: "/api/v1/api-keys", headers: m.jwt()}), &keys)
		found := false
		for _, it := range keys {
			if it["key_id"] == k["key_id"] {
				found = it["status"] == "expired"
			}
		}
		if !found {
			t.Errorf("expired key not listed as expired: %v", keys)
		}
	})
}
