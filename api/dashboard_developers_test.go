package api_test

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/kassapay/kassa/store"
	"github.com/kassapay/kassa/store/storetest"
)

func TestDashboardAPIKeys(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		e := newEnv(t, cfg)
		m := e.newMerchant(false)
		b := e.browser()
		b.signIn(m)
		b.get("/dashboard/developers/api-keys").want(t, 200, "server", "never", `action="/dashboard/developers/api-keys"`)
		b.post("/dashboard/developers/api-keys", url.Values{"name": {"ci"}, "scope": {"merchant"}, "expires": {"31/01/2027"}}).
			want(t, 400, "The expiry must be a date", `aria-invalid="true"`)
		b.post("/dashboard/developers/api-keys", url.Values{"name": {"ci"}, "scope": {"merchant"}, "expires": {"2020-01-01"}}).want(t, 400)
		made := b.post("/dashboard/developers/api-keys", url.Values{"name": {"ci"}, "scope": {"merchant"}, "expires": {"2099-01-31"}}).
			want(t, 201, "shown once", "kassa_devnet_merchant_")
		secret := regexp.MustCompile(`value="(kassa_devnet_merchant_[a-z0-9]+)"`).FindStringSubmatch(made.body)[1]
		expectStatus(t, e.do(request{method: "GET", path: "/api/v1/invoices", headers: withKey(secret)}), 200)

		list := b.get("/dashboard/developers/api-keys").want(t, 200, "ci", "2099-01-31")
		if strings.Contains(list.body, secret) {
			t.Fatalf("the key's secret is shown again")
		}
		ids := regexp.MustCompile(`/dashboard/developers/api-keys/([^/"]+)/revoke`).FindAllStringSubmatch(list.body, -1)
		if len(ids) != 2 {
			t.Fatalf("%d revoke forms, want 2", len(ids))
		}
		for _, id := range ids {
			if p := b.post("/dashboard/developers/api-keys/"+id[1]+"/revoke", url.Values{"reason": {"rotated"}}); p.status != http.StatusSeeOther {
				t.Fatalf("revoke: %d", p.status)
			}
		}
		b.get("/dashboard/developers/api-keys").want(t, 200, "revoked", "(rotated)")
		expectStatus(t, e.do(request{method: "GET", path: "/api/v1/invoices", headers: withKey(secret)}), 401)

		other := e.newMerchant(false)
		ob := e.browser()
		ob.signIn(other)
		ob.post("/dashboard/developers/api-keys/"+ids[0][1]+"/revoke", url.Values{}).want(t, 404)
	})
}

func TestDashboardWebhooksAndEvents(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		e := newEnv(t, cfg)
		m := e.newMerchant(false)
		b := e.browser()
		b.signIn(m)
		b.get("/dashboard/developers/webhooks").want(t, 200, "No devnet endpoints yet.", `value="invoice.paid"`)
		b.post("/dashboard/developers/webhooks", url.Values{"url": {"ftp://nope"}, "events": {"invoice.paid"}}).want(t, 400, `role="alert"`)
		p := b.post("/dashboard/developers/webhooks", url.Values{"url": {"https://hooks.example.com/kassa"}, "events": {"invoice.paid", "invoice.created"}})
		if p.status != http.StatusSeeOther || !strings.HasPrefix(p.location, "/dashboard/developers/webhooks/we_") {
			t.Fatalf("create: %d to %q\n%s", p.status, p.location, p.body)
		}
		base := p.location
		b.get(base).want(t, 200, "https://hooks.example.com/kassa", "whsec_", `value="invoice.paid" checked`, "No deliveries yet.")
		b.post(base+"/test", url.Values{}).want(t, 409, "create an invoice first")

		m.createInvoice(`{"amount_usd": 3, "description": "for the hook"}`)
		if p := b.post(base+"/test", url.Values{}); p.location != base+"?done=test" {
			t.Fatalf("test event: %d to %q\n%s", p.status, p.location, p.body)
		}
		page := b.get(base+"?done=test").want(t, 200, "A test event was queued", "invoice.created", "badge pending")
		evt := regexp.MustCompile(`name="event_id" value="([^"]+)"`).FindStringSubmatch(page.body)[1]
		if p := b.post(base+"/resend", url.Values{"event_id": {evt}}); p.location != base+"?done=resent" {
			t.Fatalf("resend: %d to %q", p.status, p.location)
		}
		b.post(base+"/update", url.Values{"url": {"https://hooks.example.com/v2"}, "events": {"*"}})
		b.get(base).want(t, 200, "https://hooks.example.com/v2", `value="*" checked`)
		b.post(base+"/disable", url.Values{})
		b.get(base).want(t, 200, "badge disabled", "Enable")
		b.post(base+"/test", url.Values{}).want(t, 409, "disabled")
		b.post(base+"/enable", url.Values{})
		// The whole attribute: html/template writes a "+" of the base64 secret as
		// &#43;, which a pattern of base64 characters would stop at.
		secret := regexp.MustCompile(`value="(whsec_[^"]+)"`)
		before := secret.FindStringSubmatch(b.get(base).body)
		b.post(base+"/rotate", url.Values{})
		after := b.get(base+"?done=rotated").want(t, 200, "The secret was rotated")
		if now := secret.FindStringSubmatch(after.body); before == nil || now == nil || now[1] == before[1] {
			t.Fatalf("the secret did not change")
		}
		b.post(base+"/bogus", url.Values{}).want(t, 404)

		other := e.newMerchant(false)
		ob := e.browser()
		ob.signIn(other)
		ob.get(base).want(t, 404)
		ob.post(base+"/delete", url.Values{}).want(t, 404)

		if p := b.post(base+"/delete", url.Values{}); p.location != "/dashboard/developers/webhooks" {
			t.Fatalf("delete: %d to %q", p.status, p.location)
		}
		b.get(base).want(t, 404)

		b.get("/dashboard/developers/events").want(t, 200, "invoice.created", "&#34;description&#34;: &#34;for the hook&#34;", `<a href="/docs">API reference</a>`)
		if p := b.get("/dashboard/developers/events?type=invoice.paid").want(t, 200, "No events."); strings.Contains(p.body, "for the hook") {
			t.Fatalf("the type filter lists invoice.created")
		}
		b.get("/dashboard/developers/events?type=nope").want(t, 400, "Unknown event type")
	})
}
