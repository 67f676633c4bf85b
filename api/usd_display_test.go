package api_test

import (
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/kassapay/kassa/store/storetest"
)

// TestSubCentAmountShownExactly: an invoice of 12505 millis reads "$12.505" on the
// payment page (beside "Send exactly 12.505 USDT") and on the dashboard, never a
// rounded "$12.51" (issue 37, finding 4: one rule, kassa.Millis.USD).
func TestSubCentAmountShownExactly(t *testing.T) {
	e := newEnvClock(t, storetest.SQLiteConfig(t), storetest.NewClock(time.Now()))
	m := e.newMerchant(false)
	inv := m.createInvoice(`{"amount_usd": 12.505}`)
	id, session, sig := inv["invoice_id"].(string), inv["session_token"].(string), inv["signature"].(string)
	u, _ := url.Parse(inv["payment_url"].(string))

	_, page := e.pageReq("GET", u.RequestURI(), nil, nil)
	contains(t, page, `id="amount">$12.505</strong>`, `id="paid">$0.00</dd>`, `id="remaining">$12.505</dd>`)
	resp, _ := e.pageReq("POST", "/pay/"+id+"/token", url.Values{"token_id": {"1"}, "session": {session}, "signature": {sig}}, nil)
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("token: %d", resp.StatusCode)
	}
	_, page = e.pageReq("GET", u.RequestURI(), nil, nil)
	contains(t, page, `id="amount">$12.505</strong>`, "12.505 USDT")

	b := e.browser()
	b.signIn(m)
	b.get("/dashboard/invoices/"+id).want(t, 200, "<h1>$12.505 ", "<dd>$12.505</dd>", "$0.00 of $12.505")
	b.get("/dashboard/invoices").want(t, 200, ">$12.505</a>")
}
