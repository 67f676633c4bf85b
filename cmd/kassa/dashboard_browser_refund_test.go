package main

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/kassapay/kassa"
)

// TestDashboardBrowserRefund: money in another token is refunded from the
// dashboard: Refund beside Accept and Dismiss opens the form, which says what
// is refundable; a review shows what will be sent; Create answers the refund's
// page. On the invoice's page the list then shows it, and a refund made
// meanwhile (through the API, a claim link) appears at the top of the list
// without a reload; its page shows the claim link and its QR code, and Cancel
// asks first.
func TestDashboardBrowserRefund(t *testing.T) {
	d := openSignedIn(t)
	_, id := d.createInvoice("10", "Red teapot")
	key := map[string]string{"x-api-key": d.k.merchantKey}
	pay := func(body map[string]any) {
		t.Helper()
		wantStatus(t, call(t, "POST", d.k.url+"/api/v1/devnet/invoices/"+id+"/payments", key, body, nil), 201)
	}
	pay(map[string]any{"amount_usd": 4}) // locks its token
	pay(map[string]any{"amount_usd": 2, "token_id": 3, "tx_hash": "0x" + strings.Repeat("cd", 32)})
	page := "/dashboard/invoices/" + id
	d.open(page, "")
	d.waitFor("the row offers Refund", `document.querySelectorAll('[data-live=payments] a[href*="/refund?payment="]').length===1`)

	d.follow("Refund", chromedp.Click(css(`[data-live=payments] a[href*="/refund?payment="]`)))
	waitText(t, d.ctx, "main h1", "Refund a payment")
	holds(t, d.ctx, "what is refundable", `document.querySelector("main").textContent.indexOf("Still refundable: $2.00")>=0`)
	d.check("32-refund-form")
	do(t, d.ctx, "to an address", chromedp.Click(css(`input[name=to][value=address]`)),
		chromedp.SendKeys(css("#address"), "0x52908400098527886e0f7030069857d2e4169ee7"), chromedp.SendKeys(css("#reason"), "paid in the wrong coin"))
	d.follow("review", chromedp.Click(css(`button[value=review]`)))
	waitText(t, d.ctx, "main h1", "Check the refund")
	holds(t, d.ctx, "the review names the address", `document.querySelector("main").textContent.indexOf("0x52908400098527886E0F7030069857D2E4169EE7")>=0&&
		/tBNB/.test(document.querySelector("main dl").textContent)`)
	d.check("33-refund-review")
	d.follow("create", chromedp.Click(css(`button[value=create]`)))
	d.waitFor("the refund's page", `location.search==="?done=created"&&document.querySelector("main").textContent.indexOf("The refund was created.")>=0`)
	d.check("")

	d.open(page, "")
	d.waitFor("listed, and sent on devnet", `document.querySelectorAll("[data-live=refunds] li").length===1&&
		document.querySelector("[data-live=refunds] .badge").textContent==="Refunded"`)
	holds(t, d.ctx, "no Accept or Dismiss while refunded", `document.querySelectorAll('[data-live=payments] form').length===0`)

	// A refund made elsewhere shows up live, at the top.
	var claim struct {
		ID string `json:"id"`
	}
	wantStatus(t, call(t, "POST", d.k.url+"/api/v1/invoices/"+id+"/refunds",
		map[string]string{"x-api-key": d.k.merchantKey, "Idempotency-Key": kassa.NewUUID()}, map[string]any{"amount_usd": 1}, &claim), 201)
	d.waitFor("the new refund, live", `document.querySelectorAll("[data-live=refunds] li").length===2&&
		document.querySelector("[data-live=refunds] li").getAttribute("data-refund")===`+quote(claim.ID)+`&&
		document.querySelector("[data-live=refunds] li .badge").textContent==="Waiting for the payor"`)

	d.follow("the claim refund's page", chromedp.Click(css(`[data-live=refunds] li[data-refund="`+claim.ID+`"] a`)))
	waitText(t, d.ctx, "main h2", "Send the payor this claim link")
	holds(t, d.ctx, "the claim link", `document.querySelector("#claim-link").value.indexOf(`+quote(d.k.url+"/refund/"+claim.ID+"?t=")+`)===0`)
	if w := get(t, d.ctx, "QR", chromedp.Poll[int](`document.querySelector("img.qr").complete&&document.querySelector("img.qr").naturalWidth`)); w < 100 {
		t.Errorf("QR %d px wide", w)
	}
	d.check("34-refund-claim-link")
	d.follow("cancel", chromedp.Click(css(`form[action$="/cancel"] button`)))
	holds(t, d.ctx, "asked first", `/^Cancel this refund of \$1\.00/.test(sessionStorage.getItem("confirmed"))`)
	d.waitFor("canceled", `document.querySelector("main").textContent.indexOf("The refund was canceled")>=0`)

	d.open(page, "35-invoice-refunds")
	holds(t, d.ctx, "both, newest first", `Array.prototype.map.call(document.querySelectorAll("[data-live=refunds] li .badge"),
		function(b){return b.textContent}).join()==="Canceled,Refunded"`)
}
