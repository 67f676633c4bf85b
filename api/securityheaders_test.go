package api_test

import (
	"testing"

	"github.com/kassapay/kassa/api"
	"github.com/kassapay/kassa/api/httpx"
	"github.com/kassapay/kassa/store"
	"github.com/kassapay/kassa/store/storetest"
)

// withPublicURL serves the API as if reached at url.
func withPublicURL(url string) envOption { return func(c *api.Config) { c.PublicURL = url } }

// TestHSTS: with an https public URL every answer (JSON, an error, HTML, the
// health check) carries Strict-Transport-Security; over plain http none does.
func TestHSTS(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		for _, tt := range []struct {
			url, want string
		}{{"https://pay.example.com", httpx.HSTSValue}, {"HTTPS://PAY.EXAMPLE.COM", httpx.HSTSValue}, {"http://pay.test", ""}} {
			t.Run(tt.url, func(t *testing.T) {
				e := newEnv(t, cfg, withPublicURL(tt.url))
				m := e.newMerchant(false)
				for _, r := range []*response{
					m.get("/api/v1/invoices"),
					m.get("/api/v1/invoices/nope"),
					e.do(request{method: "GET", path: "/healthz"}),
					e.do(request{method: "GET", path: "/dashboard/login"}),
					e.do(request{method: "GET", path: "/no/such/page"}),
				} {
					if got := r.header.Get("Strict-Transport-Security"); got != tt.want {
						t.Errorf("status %d: Strict-Transport-Security %q, want %q", r.status, got, tt.want)
					}
				}
			})
		}
	})
}

// TestNoStoreOnJSON: every JSON answer is Cache-Control: no-store, those that
// carry a secret (login, key create, webhook endpoint create and rotate, the
// invoice create's session) above all, and errors; the OpenAPI document keeps
// its public caching.
func TestNoStoreOnJSON(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		e := newEnv(t, cfg)
		m := e.newMerchant(false)
		login := e.do(request{method: "POST", path: "/api/v1/auth/login",
			body: `{"email":"` + m.m.Email + `","password":"correct horse"}`})
		key := e.do(request{method: "POST", path: "/api/v1/api-keys", body: `{"name":"another"}`, headers: m.jwt()})
		ep := m.send("POST", "/api/v1/webhook-endpoints", `{"url":"https://hooks.example.com/k","enabled_events":["invoice.paid"]}`)
		expectStatus(t, ep, 201)
		rotate := m.send("POST", "/api/v1/webhook-endpoints/"+ep.obj(t)["id"].(string)+"/rotate-secret", "")
		idem := newIdemKey()
		created := m.postInvoice(`{"amount_usd": 5}`, idem)
		replay := m.postInvoice(`{"amount_usd": 5}`, idem) // answered from the saved response
		ps := session(created.obj(t))
		for _, tt := range []struct {
			name   string
			r      *response
			status int
		}{
			{"login", login, 200},
			{"key create", key, 201},
			{"endpoint create", ep, 201},
			{"endpoint rotate", rotate, 200},
			{"invoice create", created, 201},
			{"invoice create replayed", replay, 201},
			{"invoice list", m.get("/api/v1/invoices"), 200},
			{"payor invoice", e.do(request{method: "GET", path: "/api/v1/payments/invoice", headers: ps}), 200},
			{"an error", m.get("/api/v1/invoices/nope"), 400},
			{"unknown URL", e.do(request{method: "GET", path: "/api/v1/nope"}), 404},
			{"health", e.do(request{method: "GET", path: "/healthz"}), 200},
		} {
			expectStatus(t, tt.r, tt.status)
			if got := tt.r.header.Get("Cache-Control"); got != "no-store" {
				t.Errorf("%s: Cache-Control %q, want no-store", tt.name, got)
			}
		}
		doc := e.do(request{method: "GET", path: "/api/v1/openapi.json"})
		if got := doc.header.Get("Cache-Control"); got != "public, max-age=300" {
			t.Errorf("the OpenAPI document: Cache-Control %q, want its public caching", got)
		}
	})
}
