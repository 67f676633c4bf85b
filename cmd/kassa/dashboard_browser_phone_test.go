package main

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/chromedp/chromedp"
)

// phoneProblemsJS lists what a 375 px reader would fight with on the page: a
// table container that scrolls sideways (its table wider than it), an
// identifier, hash or event name that wraps inside itself, and a status badge
// that shows the API's raw value instead of words.
const phoneProblemsJS = `(function(){
  var bad=[];
  document.querySelectorAll("main .scroll").forEach(function(s){
    if (s.scrollWidth>s.clientWidth+1) bad.push("a table scrolls sideways: "+s.scrollWidth+" px in "+s.clientWidth+" px");
  });
  document.querySelectorAll("main td code, main td a, main summary code").forEach(function(c){
    if (/\s/.test(c.textContent.trim())) return; // prose (a response excerpt) may wrap; identifiers may not
    var st=getComputedStyle(c), line=parseFloat(st.lineHeight)||parseFloat(st.fontSize)*1.45;
    var r=c.getBoundingClientRect();
    if (c.getClientRects().length>1 || r.height>line*1.5)
      bad.push("wraps inside: "+JSON.stringify(c.textContent.slice(0,40))+" ("+st.whiteSpace+", "+Math.round(r.height)+" px high)");
  });
  document.querySelectorAll("main .badge").forEach(function(b){
    if (/_/.test(b.textContent)) bad.push("a status in the API's words: "+b.textContent);
  });
  return bad})()`

// TestDashboardBrowserPhone: at 375 px the invoices, an invoice (paid on the dev
// chain, with its payment and webhook deliveries), an endpoint's deliveries and
// the events read without sideways scrolling: tables are stacked rows, event
// names and hashes stay whole on one line, statuses are words.
func TestDashboardBrowserPhone(t *testing.T) {
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte("ok")) }))
	defer hook.Close()
	d := openSignedIn(t)
	d.open("/dashboard/developers/webhooks", "")
	do(t, d.ctx, "add an endpoint", chromedp.SendKeys(css("#url"), hook.URL+"/kassa"),
		chromedp.Click(css("main form[action='/dashboard/developers/webhooks'] button[type=submit]")))
	d.waitFor("the endpoint's page", `!!document.querySelector("form[action$='/test']")`)
	endpoint := get(t, d.ctx, "the endpoint's page", chromedp.Location())
	payURL, id := d.createInvoice("2.50", "Phone layout")
	kassaPay(t, d.k, payURL)

	for _, p := range []struct{ path, shot, rows string }{
		{"/dashboard/invoices", "27-invoices-phone", "main tbody tr"},
		{"/dashboard/invoices/" + id, "28-invoice-paid-phone", "main [data-live=payments] tr"},
		{endpoint[len(d.k.url):], "29-webhook-deliveries-phone", "main tbody tr"},
		{"/dashboard/developers/events", "", "main .events li"},
	} {
		d.open(p.path, p.shot)
		viewport(t, d.ctx, 375, 800)
		if n := get(t, d.ctx, "rows", chromedp.Evaluate[int](`document.querySelectorAll(`+quote(p.rows)+`).length`)); n == 0 {
			t.Errorf("%s: no rows (%s) to check", p.path, p.rows)
		}
		for _, b := range get(t, d.ctx, "phone problems", chromedp.Evaluate[[]string](phoneProblemsJS)) {
			t.Errorf("%s at 375 px: %s", p.path, b)
		}
		do(t, d.ctx, "reset viewport", chromedp.ResetViewport())
	}
	// The invoice page: the receipt in its token beside USD, statuses in words.
	d.open("/dashboard/invoices/"+id, "")
	holds(t, d.ctx, "the receipt's token amount", `/^2\.5 USDT \(\$2\.50\)$/.test(document.querySelector("[data-live=payments] td").textContent.trim())`)
	holds(t, d.ctx, "the status in words", `document.querySelector("main h1 .badge").textContent==="Paid"&&/API status: paid/.test(document.querySelector("main h1 .badge").title)`)
}
