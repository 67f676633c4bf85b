package main

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// rows are the invoice list's rows as "status description", the status as the
// API names it (the badge's class; the badge reads it in words).
func (d *dashTab) rows() []string {
	d.t.Helper()
	return get(d.t, d.ctx, "rows", chromedp.Evaluate[[]string](`Array.prototype.map.call(document.querySelectorAll("main tbody tr"),
		function(tr){return tr.cells[1].querySelector(".badge").classList[1]+" "+tr.cells[2].textContent.trim()})`))
}

// wantRows fails unless the list shows exactly want.
func (d *dashTab) wantRows(what string, want ...string) {
	d.t.Helper()
	if got := d.rows(); strings.Join(got, "|") != strings.Join(want, "|") {
		d.t.Errorf("%s: rows %q, want %q", what, got, want)
	}
}

// TestDashboardBrowserSearch: the search box finds an invoice by its id and by a
// word of its description; the status filter keeps the paid ones; both live in
// the URL.
func TestDashboardBrowserSearch(t *testing.T) {
	d := openDashboard(t)
	_, teapot := pageInvoice(t, d.k, map[string]any{"amount_usd": 5, "description": "Blue teapot"})
	_, kettle := pageInvoice(t, d.k, map[string]any{"amount_usd": 7, "description": "Red kettle"})
	pageInvoice(t, d.k, map[string]any{"amount_usd": 9, "description": "Green mug"})
	devnetPay(t, d.k, kettle, 0)
	d.signIn()
	d.open("/dashboard/invoices", "")
	d.wantRows("all", "unpaid Green mug", "paid Red kettle", "unpaid Blue teapot")
	search := func(q string) {
		t.Helper()
		do(t, d.ctx, "search "+q, chromedp.Evaluate[chromedp.Void](`document.getElementById("q").value=""`), chromedp.SendKeys(css("#q"), q+"\r"))
		d.waitFor("the search in the URL", `new URLSearchParams(location.search).get("q")===`+quote(q)+`&&document.readyState==="complete"`)
	}
	search(teapot)
	d.wantRows("by id", "unpaid Blue teapot")
	d.check("15-invoices-search")
	search("kettle")
	d.wantRows("by a word", "paid Red kettle")
	d.follow("clear, tick paid", chromedp.Click(css("main a[href='/dashboard/invoices']")))
	d.waitFor("cleared", `location.search===""&&document.readyState==="complete"`)
	do(t, d.ctx, "filter paid", chromedp.Click(css("input[name=status][value=paid]")), chromedp.Click(css("form.filters button[type=submit]")))
	d.waitFor("the filter in the URL", `new URLSearchParams(location.search).getAll("status").join()==="paid"&&document.readyState==="complete"`)
	d.wantRows("paid", "paid Red kettle")
	holds(t, d.ctx, "the box stays ticked", `document.querySelector("input[name=status][value=paid]").checked`)
	d.check("16-invoices-paid")
}

// TestDashboardBrowserReportsCSV: the reports page's invoices link answers a
// CSV file with a header row (fetched with the browser's session cookie).
func TestDashboardBrowserReportsCSV(t *testing.T) {
	d := openDashboard(t)
	pageInvoice(t, d.k, map[string]any{"amount_usd": 4, "description": "In the report"})
	d.signIn()
	d.open("/dashboard/reports", "17-reports")
	got := get(t, d.ctx, "download", chromedp.Evaluate[string](`fetch(document.querySelector("a[href^='/dashboard/reports/invoices.csv']").href)
		.then(function(r){return r.text().then(function(t){return r.status+" "+r.headers.get("content-type")+"\n"+t})})`, chromedp.EvalAwaitPromise))
	head, body, _ := strings.Cut(got, "\n")
	lines := strings.Split(strings.TrimSpace(body), "\n")
	if !strings.HasPrefix(head, "200 text/csv") || len(lines) != 2 || !strings.Contains(lines[0], "id") ||
		!strings.Contains(lines[1], "In the report") {
		t.Fatalf("the invoices CSV: %q", got)
	}
}

// TestDashboardBrowserLivePayment: an invoice made in the form and paid with
// kassa pay on the dev chain turns "Paid" on the open page, without a reload.
func TestDashboardBrowserLivePayment(t *testing.T) {
	d := openSignedIn(t)
	payURL, id := d.createInvoice("2.50", "Paid live")
	do(t, d.ctx, "mark the page", chromedp.Evaluate[chromedp.Void](`window.__noReload=1`))
	kassaPay(t, d.k, payURL)
	badge := `document.querySelector("main .badge").textContent.trim()`
	for end := time.Now().Add(45 * time.Second); ; time.Sleep(250 * time.Millisecond) {
		if get(t, d.ctx, "badge", chromedp.Evaluate[string](badge)) == "Paid" {
			break
		}
		if time.Now().After(end) {
			var inv struct{ Status string }
			call(t, "GET", d.k.url+"/api/v1/invoices/"+id, map[string]string{"x-api-key": d.k.merchantKey}, nil, &inv)
			t.Fatalf("the open page's badge still reads %q (page not reloaded: %v); the API says the invoice is %q",
				get(t, d.ctx, "badge", chromedp.Evaluate[string](badge)), get(t, d.ctx, "mark", chromedp.Evaluate[bool](`window.__noReload===1`)), inv.Status)
		}
	}
	holds(t, d.ctx, "updated live, not reloaded", `window.__noReload===1`)
	d.check("18-invoice-paid-live")
}
