package api_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/store"
	"github.com/kassapay/kassa/store/storetest"
)

// claimLink creates a refund of usd on a devnet invoice of m paid in full and
// returns the refund's id and its claim page path (/refund/{id}?t=TOKEN).
func claimLink(t *testing.T, m *merchant, body string) (string, string) {
	t.Helper()
	inv := m.createInvoice(`{"amount_usd": 10}`)["invoice_id"].(string)
	expectStatus(t, m.e.do(request{method: "POST", path: "/api/v1/devnet/invoices/" + inv + "/payments", body: `{"amount_usd": 10}`, headers: withKey(m.key)}), 201)
	h := withKey(m.key)
	h["Idempotency-Key"] = newIdemKey()
	r := m.e.do(request{method: "POST", path: "/api/v1/invoices/" + inv + "/refunds", body: body, headers: h})
	expectStatus(t, r, 201)
	ref := r.obj(t)
	u, err := url.Parse(ref["claim_url"].(string))
	if err != nil {
		t.Fatal(err)
	}
	return ref["id"].(string), u.RequestURI()
}

// claimForm is the claim form's fields for the page at path.
func claimForm(path, address string, confirm bool) url.Values {
	u, _ := url.Parse(path)
	f := url.Values{"t": {u.Query().Get("t")}, "address": {address}}
	if confirm {
		f.Set("confirm", "1")
	}
	return f
}

// lacks fails when page contains any of bad.
func lacks(t *testing.T, page string, bad ...string) {
	t.Helper()
	for _, b := range bad {
		if strings.Contains(page, b) {
			t.Errorf("page has %q", b)
		}
	}
}

const payorAddress = "0xde709f2102306220921060314715629080e2fb77"

// TestRefundPageClaim walks the claim page with plain HTTP, as a browser without
// JavaScript would: a wrong token, an unknown id and no token are the same 404
// that names nothing; the page shows the shop, the amount in USD and in the
// token on its network, the warning and the form; a missing confirmation, a
// malformed address and a wrong checksum show the form again with the error in
// words and what was typed; a post from another origin is 403; the claim
// redirects (303) to the page, which then follows the refund (pending, a no-JS
// refresh); a second claim goes back to the page too, not to an error. Spanish
// by Accept-Language and by lang. Both engines.
func TestRefundPageClaim(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		e := newEnv(t, cfg)
		m := e.newMerchant(false)
		id, path := claimLink(t, m, `{"amount_usd": 6, "reason": "one mug broke"}`)
		shop := m.m.CompanyName

		notFound := []struct{ name, path string }{
			{"wrong token", "/refund/" + id + "?t=wrong"},
			{"no token", "/refund/" + id},
			{"unknown id", "/refund/" + kassa.NewUUID() + "?" + strings.SplitN(path, "?", 2)[1]},
			{"malformed id", "/refund/x?t=wrong"},
		}
		var first string
		for _, c := range notFound {
			resp, page := e.pageReq("GET", c.path, nil, nil)
			if resp.StatusCode != 404 {
				t.Fatalf("%s: %d", c.name, resp.StatusCode)
			}
			contains(t, page, "This refund link does not work")
			lacks(t, page, shop, "$6.00", "one mug broke")
			if first == "" {
				first = page
			} else if page != first {
				t.Errorf("%s: the 404 differs from the first: it tells ids apart", c.name)
			}
		}

		resp, page := e.pageReq("GET", path, nil, nil)
		if resp.StatusCode != 200 {
			t.Fatalf("page %d: %s", resp.StatusCode, page)
		}
		for k, want := range map[string]string{"Cache-Control": "no-store", "Referrer-Policy": "no-referrer",
			"X-Frame-Options": "DENY"} {
			if got := resp.Header.Get(k); got != want {
				t.Errorf("%s: %q", k, got)
			}
		}
		if csp := resp.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "script-src 'self'") || !strings.Contains(csp, "form-action 'self'") {
			t.Errorf("CSP %q", csp)
		}
		contains(t, page, shop, "$6.00", " USDT", "BNB Smart Chain Testnet", "Your refund is ready", `action="/refund/`+id+`"`,
			`name="address"`, `name="confirm"`, "exchange", "cannot be taken back", `This link takes an address until <time class="nowrap">`)
		lacks(t, page, "one mug broke", "refresh", "payment_id")

		// The form, refused.
		refused := []struct {
			name, address string
			confirm       bool
			want          string
		}{
			{"not confirmed", payorAddress, false, "Tick the box"},
			{"not an address", "0x1234", true, "This is not an address"},
			{"wrong checksum", "0xDe709f2102306220921060314715629080e2fb77", true, "typing error"},
		}
		for _, c := range refused {
			resp, page := e.pageReq("POST", "/refund/"+id, claimForm(path, c.address, c.confirm), nil)
			if resp.StatusCode != 400 {
				t.Fatalf("%s: %d", c.name, resp.StatusCode)
			}
			contains(t, page, c.want, `value="`+c.address+`"`, `aria-invalid="true"`, shop)
		}
		resp, page = e.pageReq("POST", "/refund/"+id, claimForm(path, payorAddress, true), map[string]string{"Sec-Fetch-Site": "cross-site"})
		if resp.StatusCode != 403 {
			t.Fatalf("cross-origin post: %d", resp.StatusCode)
		}
		lacks(t, page, shop)
		resp, _ = e.pageReq("POST", "/refund/"+id, claimForm("/refund/"+id+"?t=wrong", payorAddress, true), nil)
		if loc := resp.Header.Get("Location"); resp.StatusCode != 404 {
			t.Fatalf("wrong token post: %d %s", resp.StatusCode, loc)
		}
		r := m.get("/api/v1/refunds/" + id)
		if r.obj(t)["status"] != "awaiting_address" {
			t.Fatalf("refused posts changed the refund: %s", r.body)
		}

		// The claim.
		resp, _ = e.pageReq("POST", "/refund/"+id, claimForm(path, payorAddress, true), map[string]string{"Sec-Fetch-Site": "same-origin"})
		loc := resp.Header.Get("Location")
		if resp.StatusCode != 303 || !strings.HasPrefix(loc, "/refund/"+id+"?") || !strings.HasSuffix(loc, "&done=claim") {
			t.Fatalf("claim: %d %q", resp.StatusCode, loc)
		}
		resp, page = e.pageReq("GET", loc, nil, nil)
		if resp.StatusCode != 200 {
			t.Fatalf("after the claim: %d", resp.StatusCode)
		}
		contains(t, page, "Your refund is on its way", "your address is saved", payorAddress, `http-equiv="refresh"`, "$6.00")
		lacks(t, page, `name="address"`)
		r = m.get("/api/v1/refunds/" + id)
		if got := r.obj(t); got["status"] != "pending" || got["address"] != payorAddress {
			t.Fatalf("claimed refund %s", r.body)
		}
		resp, _ = e.pageReq("POST", "/refund/"+id, claimForm(path, "0x52908400098527886E0F7030069857D2E4169EE7", true), nil)
		if loc := resp.Header.Get("Location"); resp.StatusCode != 303 || strings.Contains(loc, "done=") {
			t.Fatalf("second claim: %d %q", resp.StatusCode, loc)
		}
		_, page = e.pageReq("GET", path, nil, nil)
		contains(t, page, "Your refund is on its way", payorAddress)
		lacks(t, page, "0x52908400098527886E0F7030069857D2E4169EE7", "your address is saved")

		// Spanish.
		_, page = e.pageReq("GET", path, nil, map[string]string{"Accept-Language": "es-AR,es;q=0.9"})
		contains(t, page, `lang="es"`, "Su reembolso va camino", "Red")
		_, page = e.pageReq("GET", strings.Replace(path, "lang=en", "lang=es", 1)+"&lang=es", nil, nil)
		contains(t, page, "Su reembolso va camino")
		_, page = e.pageReq("GET", "/refund/"+id+"?t=wrong&lang=es", nil, nil)
		contains(t, page, "Este enlace de reembolso no funciona")
		id2, path2 := claimLink(t, m, `{"amount_usd": 2}`)
		resp, page = e.pageReq("POST", "/refund/"+id2, claimForm(path2, "0x1234", true), map[string]string{"Accept-Language": "es"})
		if resp.StatusCode != 400 {
			t.Fatalf("es error %d", resp.StatusCode)
		}
		contains(t, page, "Esto no es una dirección", "Su dirección en")
	})
}

// TestRefundPageStatuses: after the claim the page says where the refund stands
// in words: pending, sent with its transaction, confirmed with the explorer link
// (the network's explorer_url), failed and canceled naming the shop to contact;
// it follows the refund (a no-JS refresh, the event stream) only while it may
// still change; the event stream sends the payor's view (no merchant-only field)
// and 404s a wrong token. A refund canceled before its claim is canceled, not a form.
// Both engines.
func TestRefundPageStatuses(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		e := newEnv(t, cfg)
		m := e.newMerchant(false)
		raw := storetest.RawDB(t, cfg)
		shop := m.m.CompanyName
		hash := "0x" + strings.Repeat("ab", 32)
		set := func(id, status, tx string) {
			t.Helper()
			if _, err := raw.ExecContext(context.Background(), "UPDATE refunds SET status = $1, tx_hash = $2 WHERE id = $3", status, tx, id); err != nil {
				t.Fatal(err)
			}
		}
		id, path := claimLink(t, m, `{"amount_usd": 3}`)
		resp, _ := e.pageReq("POST", "/refund/"+id, claimForm(path, payorAddress, true), nil)
		expectStatusCode(t, resp, 303)

		tests := []struct {
			name   string
			before func()
			wants  []string
			bad    []string
			open   bool
		}{
			{"pending", func() {}, []string{"Your refund is on its way", payorAddress}, []string{hash, "tx-row\">"}, true},
			{"sent", func() { set(id, "sent", hash) }, []string{"Your refund was sent", hash, "https://testnet.bscscan.com/tx/" + hash},
				nil, true},
			{"confirmed", func() {
				set(id, "pending", "")
				n, err := e.db.SimulateRefunds(context.Background(), kassa.Devnet, func(string) bool { return false },
					func(string) string { return hash })
				if err != nil || n != 1 {
					t.Fatalf("simulate: %d %v", n, err)
				}
			}, []string{"Your refund has arrived", `href="https://testnet.bscscan.com/tx/` + hash + `"`, payorAddress}, nil, false},
			{"failed", func() { set(id, "failed", "") }, []string{"could not be sent. Contact " + shop}, nil, false},
		}
		for _, tt := range tests {
			tt.before()
			resp, page := e.pageReq("GET", path, nil, nil)
			if resp.StatusCode != 200 {
				t.Fatalf("%s: %d", tt.name, resp.StatusCode)
			}
			contains(t, page, tt.wants...)
			lacks(t, page, tt.bad...)
			lacks(t, page, `name="address"`)
			if got := strings.Contains(page, `http-equiv="refresh"`); got != tt.open {
				t.Errorf("%s: refresh %v", tt.name, got)
			}
			if got := strings.Contains(page, `data-open="true"`); got != tt.open {
				t.Errorf("%s: data-open %v", tt.name, got)
			}
		}

		// The event stream: the payor's view, once, as the refund is final (failed).
		resp, stream := e.pageReq("GET", strings.Replace(path, "?", "/events?", 1), nil, nil)
		if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" ||
			!strings.HasPrefix(stream, `data: {"object":"refund","id":"`+id+`"`) || !strings.Contains(stream, `"status":"failed"`) ||
			!strings.Contains(stream, `"address":"`+payorAddress+`"`) || strings.Count(stream, "data: ") != 1 {
			t.Fatalf("events %d %q", resp.StatusCode, stream)
		}
		lacks(t, stream, "payment_id", "reason", "claim_url")
		resp, _ = e.pageReq("GET", "/refund/"+id+"/events?t=wrong", nil, nil)
		expectStatusCode(t, resp, 404)

		// Canceled before the claim: no form.
		id2, path2 := claimLink(t, m, `{"amount_usd": 1}`)
		expectStatus(t, e.do(request{method: "POST", path: "/api/v1/refunds/" + id2 + "/cancel", headers: withKey(m.key)}), 200)
		resp, page := e.pageReq("GET", path2, nil, nil)
		expectStatusCode(t, resp, 200)
		contains(t, page, shop+" canceled this refund")
		lacks(t, page, `name="address"`, `http-equiv="refresh"`)
		resp, _ = e.pageReq("POST", "/refund/"+id2, claimForm(path2, payorAddress, true), nil)
		expectStatusCode(t, resp, 303)
	})
}

// expectStatusCode fails the test when resp's status is not want.
func expectStatusCode(t *testing.T, resp *http.Response, want int) {
	t.Helper()
	if resp.StatusCode != want {
		t.Fatalf("status %d, want %d", resp.StatusCode, want)
	}
}
