package api_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/kassapay/kassa/store"
	"github.com/kassapay/kassa/store/storetest"
)

// TestDashboardAcceptAndDismiss: a payment set aside shows why and offers Accept
// and Dismiss (each behind a confirmation); accepting money paid after expiry
// pays the invoice, dismissing money in another token keeps the invoice as it
// was; the forms are gone once resolved; another merchant and another site are
// refused.
func TestDashboardAcceptAndDismiss(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		e := newEnvClock(t, cfg, storetest.NewClock(time.Now()))
		m := e.newMerchant(false)
		b := e.browser()
		b.signIn(m)
		pay := func(id, body string) map[string]any {
			t.Helper()
			r := e.do(request{method: "POST", path: "/api/v1/devnet/invoices/" + id + "/payments", body: body, headers: withKey(m.key)})
			expectStatus(t, r, 201)
			return r.obj(t)["payment"].(map[string]any)
		}

		late := m.createInvoice(`{"amount_usd": 10, "expires_in": 1000}`)["invoice_id"].(string)
		e.clock.Advance(2 * time.Second)
		p := pay(late, `{"amount_usd": 10}`)
		page := "/dashboard/invoices/" + late
		accept := page + "/payments/" + p["id"].(string) + "/accept"
		b.get(page).want(t, 200, "Needs review: paid after expiry", `action="`+accept+`"`,
			`data-confirm="Accept 10 USDT ($10.00)?`, ">Dismiss</button>")

		ob := e.browser()
		ob.signIn(e.newMerchant(false))
		ob.post(accept, nil).want(t, 404)
		b.post(accept, nil, "Origin: http://evil.example").want(t, 403)

		r := b.post(accept, url.Values{"note": {"late exchange withdrawal"}})
		if r.status != http.StatusSeeOther || r.location != page+"?done=accepted#payments" {
			t.Fatalf("accept: %d to %q\n%s", r.status, r.location, r.body)
		}
		after := b.get(page+"?done=accepted").want(t, 200, "The payment was accepted", "badge paid", "$10.00 of $10.00")
		if strings.Contains(after.body, `action="`+accept+`"`) {
			t.Fatalf("a resolved payment still offers Accept")
		}
		b.post(accept, nil).want(t, 409) // resolved already

		open := m.createInvoice(`{"amount_usd": 10}`)["invoice_id"].(string)
		pay(open, `{"amount_usd": 4}`)
		wrong := pay(open, `{"token_id": 3, "amount_usd": 2, "tx_hash": "0x`+strings.Repeat("cd", 32)+`"}`)
		page = "/dashboard/invoices/" + open
		dismiss := page + "/payments/" + wrong["id"].(string) + "/dismiss"
		b.get(page).want(t, 200, "Needs review: wrong token", `action="`+dismiss+`"`)
		r = b.post(dismiss, nil)
		if r.status != http.StatusSeeOther || r.location != page+"?done=dismissed#payments" {
			t.Fatalf("dismiss: %d to %q\n%s", r.status, r.location, r.body)
		}
		b.get(page+"?done=dismissed").want(t, 200, "The payment was dismissed", "$4.00 of $10.00")
	})
}
