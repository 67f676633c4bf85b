package api_test

import (
	"net/http"
	"net/url"
	"regexp"
	"testing"
	"time"

	"github.com/kassapay/kassa/store/storetest"
)

// TestDashboardTimelineSaysWhatChanged: a payor choosing a token and giving an
// email makes two invoice.updated events; the invoice's timeline tells each for
// what it is, not "Invoice unpaid: $0.00 paid" twice (issue 37, finding 5).
func TestDashboardTimelineSaysWhatChanged(t *testing.T) {
	e := newEnvClock(t, storetest.SQLiteConfig(t), storetest.NewClock(time.Now()))
	m := e.newMerchant(false)
	inv := m.createInvoice(`{"amount_usd": 10}`)
	id := inv["invoice_id"].(string)
	creds := url.Values{"session": {inv["session_token"].(string)}, "signature": {inv["signature"].(string)}}
	for _, step := range []struct{ path, field, value string }{{"token", "token_id", "1"}, {"email", "email", "payor@example.com"}} {
		form := url.Values{step.field: {step.value}}
		for k, v := range creds {
			form[k] = v
		}
		if resp, _ := e.pageReq("POST", "/pay/"+id+"/"+step.path, form, nil); resp.StatusCode != http.StatusSeeOther {
			t.Fatalf("%s: %d", step.path, resp.StatusCode)
		}
	}
	b := e.browser()
	b.signIn(m)
	p := b.get("/dashboard/invoices/"+id).want(t, 200, "Invoice created for $10.00", "Payor chose the token to pay with",
		"Payor gave an email for the receipt")
	seen := map[string]bool{}
	for _, row := range regexp.MustCompile(`</time> ([^<]+)</li>`).FindAllStringSubmatch(p.body, -1) {
		if seen[row[1]] {
			t.Errorf("the timeline says %q twice", row[1])
		}
		seen[row[1]] = true
	}
	if len(seen) != 3 {
		t.Errorf("timeline rows %v, want 3", seen)
	}
}
