package api_test

import (
	"strings"
	"testing"

	"github.com/kassapay/kassa/api"
	"github.com/kassapay/kassa/delivery"
	"github.com/kassapay/kassa/store"
	"github.com/kassapay/kassa/store/storetest"
)

// postJSON sends a request with a JSON body and the merchant key.
func (m *merchant) send(method, path, body string) *response {
	m.e.t.Helper()
	return m.e.do(request{method: method, path: path, body: body, headers: withKey(m.key)})
}

func TestWebhookEndpointsAPI(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		e := newEnv(t, cfg)
		m := e.newMerchant(false)
		r := m.send("POST", "/api/v1/webhook-endpoints",
			`{"url":"https://hooks.example.com/kassa","enabled_events":["invoice.*","invoice.paid","invoice.*"],"description":"orders"}`)
		expectStatus(t, r, 201)
		ep := r.obj(t)
		id, _ := ep["id"].(string)
		secret, _ := ep["secret"].(string)
		if !strings.HasPrefix(id, "we_") || !strings.HasPrefix(secret, "whsec_") || ep["object"] != "webhook_endpoint" ||
			ep["status"] != "enabled" || ep["environment"] != "devnet" || ep["description"] != "orders" {
			t.Fatalf("created endpoint %v", ep)
		}
		if evs := ep["enabled_events"].([]any); len(evs) != 2 {
			t.Errorf("enabled_events not deduplicated: %v", evs)
		}

		got := m.get("/api/v1/webhook-endpoints/" + id).obj(t)
		if _, ok := got["secret"]; ok {
			t.Errorf("retrieve shows the secret")
		}
		sameIDs(t, ids(t, m.get("/api/v1/webhook-endpoints")), []string{id})

		r = m.send("PATCH", "/api/v1/webhook-endpoints/"+id, `{"disabled":true,"enabled_events":["*"]}`)
		expectStatus(t, r, 200)
		if up := r.obj(t); up["status"] != "disabled" || up["disabled_reason"] != "disabled_by_merchant" {
			t.Errorf("disabled endpoint %v", up)
		}
		r = m.send("PATCH", "/api/v1/webhook-endpoints/"+id, `{"disabled":false}`)
		if up := r.obj(t); up["status"] != "enabled" || up["disabled_reason"] != nil {
			t.Errorf("re-enabled endpoint %v", up)
		}

		r = m.send("POST", "/api/v1/webhook-endpoints/"+id+"/rotate-secret", "")
		expectStatus(t, r, 200)
		if s2 := r.obj(t)["secret"]; s2 == secret || !strings.HasPrefix(s2.(string), "whsec_") {
			t.Errorf("rotated secret %v (was %s)", s2, secret)
		}

		r = m.get("/api/v1/webhook-endpoints/" + id + "/deliveries")
		expectStatus(t, r, 200)
		if d := r.obj(t); d["object"] != "list" || len(d["data"].([]any)) != 0 {
			t.Errorf("deliveries %v", d)
		}

		// Other merchants and the other environment do not see it.
		other := e.newMerchant(false)
		expectError(t, other.get("/api/v1/webhook-endpoints/"+id), 404, "not_found_error", "resource_missing", "")
		mainnetJWT := m.jwt()
		mainnetJWT["X-Environment"] = "mainnet"
		expectStatus(t, e.do(request{method: "GET", path: "/api/v1/webhook-endpoints", headers: m.jwt()}), 200)

		r = m.send("DELETE", "/api/v1/webhook-endpoints/"+id, "")
		expectStatus(t, r, 200)
		if d := r.obj(t); d["deleted"] != true || d["id"] != id {
			t.Errorf("delete %v", d)
		}
		expectError(t, m.get("/api/v1/webhook-endpoints/"+id), 404, "not_found_error", "resource_missing", "")
	})
}

// TestWebhookEndpointsPrivateTargets: endpoints at loopback or private addresses
// are refused on devnet and mainnet (400 private_url_not_allowed on url) unless the
// operator allowed private targets; that lets devnet endpoints reach them (plain
// http to loopback too), never mainnet ones, and link-local stays refused.
func TestWebhookEndpointsPrivateTargets(t *testing.T) {
	urls := []string{"http://127.0.0.1:9000/hook", "https://127.0.0.1/hook", "https://10.0.0.8/hook",
		"https://localhost/x", "https://[::1]/x"}
	create := func(e *testEnv, key, url string) *response {
		return e.do(request{method: "POST", path: "/api/v1/webhook-endpoints", headers: withKey(key),
			body: `{"url":"` + url + `","enabled_events":["*"]}`})
	}
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		e := newEnv(t, cfg)
		m := e.newMerchant(true)
		mainnet := m.createKey(`{"name":"live","environment":"mainnet"}`)["api_key"].(string)
		for _, u := range urls {
			for _, key := range []string{m.key, mainnet} {
				expectError(t, create(e, key, u), 400, "invalid_request_error", "private_url_not_allowed", "url")
			}
		}
		id := m.send("POST", "/api/v1/webhook-endpoints", `{"url":"https://hooks.example.com/k","enabled_events":["*"]}`)
		expectStatus(t, id, 201)
		expectError(t, m.send("PATCH", "/api/v1/webhook-endpoints/"+id.obj(t)["id"].(string), `{"url":"https://[::1]/x"}`),
			400, "invalid_request_error", "private_url_not_allowed", "url")
	})
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		e := newEnv(t, cfg, func(c *api.Config) { c.WebhookTargets = delivery.Targets{AllowPrivate: true} })
		m := e.newMerchant(true)
		mainnet := m.createKey(`{"name":"live","environment":"mainnet"}`)["api_key"].(string)
		for _, u := range urls {
			expectStatus(t, create(e, m.key, u), 201)
		}
		for _, u := range append(urls, "https://10.0.0.5/", "http://127.0.0.1/", "https://100.64.0.1/") {
			expectError(t, create(e, mainnet, u), 400, "invalid_request_error", "private_url_not_allowed", "url")
		}
		live := create(e, mainnet, "https://hooks.example.com/k")
		expectStatus(t, live, 201)
		expectError(t, e.do(request{method: "PATCH", path: "/api/v1/webhook-endpoints/" + live.obj(t)["id"].(string),
			headers: withKey(mainnet), body: `{"url":"https://10.0.0.5/"}`}),
			400, "invalid_request_error", "private_url_not_allowed", "url")
		expectError(t, create(e, m.key, "https://169.254.169.254/latest"), 400, "invalid_request_error", "private_url_not_allowed", "url")
	})
}

func TestWebhookEndpointsAPIErrors(t *testing.T) {
	e := newEnv(t, storetest.SQLiteConfig(t))
	m := e.newMerchant(true)
	cases := []struct {
		name, body, code, param string
	}{
		{"no url", `{"enabled_events":["*"]}`, "missing_param", "url"},
		{"no events", `{"url":"https://a.example"}`, "missing_param", "enabled_events"},
		{"empty events", `{"url":"https://a.example","enabled_events":[]}`, "invalid_enabled_events", "enabled_events"},
		{"unknown event", `{"url":"https://a.example","enabled_events":["invoice.bogus"]}`, "invalid_enabled_events", "enabled_events"},
		{"events not strings", `{"url":"https://a.example","enabled_events":[1]}`, "invalid_type", "enabled_events"},
		{"plain http", `{"url":"http://a.example/x","enabled_events":["*"]}`, "invalid_url", "url"},
		{"not a url", `{"url":"hooks","enabled_events":["*"]}`, "invalid_url", "url"},
		{"ftp", `{"url":"ftp://a.example","enabled_events":["*"]}`, "invalid_url", "url"},
		{"fragment", `{"url":"https://a.example/#x","enabled_events":["*"]}`, "invalid_url", "url"},
		{"url type", `{"url":5,"enabled_events":["*"]}`, "invalid_type", "url"},
		{"unknown field", `{"url":"https://a.example","enabled_events":["*"],"x":1}`, "unknown_parameter", "x"},
		{"disabled on create", `{"url":"https://a.example","enabled_events":["*"],"disabled":true}`, "unknown_parameter", "disabled"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			expectError(t, m.send("POST", "/api/v1/webhook-endpoints", c.body), 400, "invalid_request_error", c.code, c.param)
		})
	}
	ck := m.createKey(`{"name":"c","scope":"commerce"}`)["api_key"].(string)
	expectError(t, e.do(request{method: "GET", path: "/api/v1/webhook-endpoints", headers: withKey(ck)}),
		403, "permission_error", "wrong_key_scope", "")
	expectError(t, m.send("PATCH", "/api/v1/webhook-endpoints/we_nope", `{"disabled":true}`), 404, "not_found_error", "resource_missing", "")
	expectError(t, m.send("POST", "/api/v1/events/evt_00000000000000000000000000000000/resend", ""), 404, "not_found_error", "resource_missing", "")
	expectError(t, m.get("/api/v1/webhook-endpoints/we_nope/deliveries?limit=0"), 400, "invalid_request_error", "invalid_limit", "limit")
}
