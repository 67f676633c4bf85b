package main

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestDashboardBrowserSetAside: money in another token than the one the invoice
// locked arrives while its page is open; the live update shows why it needs
// review and offers Accept and Dismiss; Dismiss asks first, then keeps it
// without credit; a second one is accepted and counts toward the invoice.
func TestDashboardBrowserSetAside(t *testing.T) {
	d := openSignedIn(t)
	_, id := d.createInvoice("10", "Green teapot")
	key := map[string]string{"x-api-key": d.k.merchantKey}
	pay := func(body map[string]any) {
		t.Helper()
		wantStatus(t, call(t, "POST", d.k.url+"/api/v1/devnet/invoices/"+id+"/payments", key, body, nil), 201)
	}
	pay(map[string]any{"amount_usd": 4}) // locks its token
	d.open("/dashboard/invoices/"+id, "")
	pay(map[string]any{"amount_usd": 2, "token_id": 3, "tx_hash": "0x" + strings.Repeat("cd", 32)})
	d.waitFor("the live row offers Accept and Dismiss", `Array.prototype.some.call(document.querySelectorAll("[data-live=payments] tr"),
		function(tr){return tr.textContent.indexOf("Needs review: wrong token")>=0&&tr.querySelectorAll("form[data-confirm] button").length===2})`)
	d.open("/dashboard/invoices/"+id, "30-payment-set-aside") // as served, not as the live update drew it

	d.follow("dismiss", chromedp.Click(css(`[data-live=payments] form[action$="/dismiss"] button`)))
	d.at("/dashboard/invoices/" + id + "?done=dismissed")
	holds(t, d.ctx, "asked first", `/^Dismiss 0\.00[0-9]* tBNB \(\$2\.00\)\?/.test(sessionStorage.getItem("confirmed"))`)
	d.waitFor("dismissed", `document.querySelector("main").textContent.indexOf("The payment was dismissed")>=0&&
		document.querySelector("[data-live=paid]").textContent==="$4.00 of $10.00"`)

	pay(map[string]any{"amount_usd": 6, "token_id": 3, "tx_hash": "0x" + strings.Repeat("ce", 32)})
	d.waitFor("the second offers Accept", `document.querySelectorAll('[data-live=payments] form[action$="/accept"]').length===1`)
	d.follow("accept", chromedp.Click(css(`[data-live=payments] form[action$="/accept"] button`)))
	d.waitFor("accepted and paid", `document.querySelector("main").textContent.indexOf("The payment was accepted")>=0&&
		document.querySelector("[data-live=paid]").textContent==="$10.00 of $10.00"&&document.querySelectorAll('[data-live=payments] form').length===0`)
	d.open("/dashboard/invoices/"+id, "31-payment-accepted")
}
