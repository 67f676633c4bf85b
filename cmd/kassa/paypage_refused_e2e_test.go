package main

import (
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"github.com/kassapay/kassa/store/storetest"
)

// TestSpanishAndPollingInBrowser: the Spanish page, with its event stream
// refused by the server (a bad signature: 401, so EventSource closes at once),
// still follows the invoice by polling: "send the rest", then "paid", live.
func TestSpanishAndPollingInBrowser(t *testing.T) {
	ctx := browser(t)
	k := startKassa(t, storetest.SQLiteConfig(t))
	payURL, id := pageInvoice(t, k, map[string]any{"amount_usd": 12, "invoice_title": "Northwind Goods",
		"description": "Dos tazas", "expires_in": 30 * 24 * 3600 * 1000})
	beforeScripts(t, ctx, `(function(){var ES=window.EventSource;window.EventSource=function(u){
		return new ES(u.replace(/signature=[^&]*/,"signature=00"))};window.EventSource.CLOSED=ES.CLOSED})()`)
	var mu sync.Mutex
	streams := map[int64]bool{} // status of each answer to /events
	if err := chromedp.Listen(ctx, func(ev any) {
		if e, ok := ev.(*network.EventResponseReceived); ok && strings.Contains(e.Response.URL, "/events?") {
			mu.Lock()
			streams[e.Response.Status] = true
			mu.Unlock()
		}
	}); err != nil {
		t.Fatal(err)
	}
	do(t, ctx, "open the Spanish page", chromedp.Navigate(payURL+"&lang=es"), chromedp.WaitVisible(css("#tokens")))
	waitText(t, ctx, "#status-text", "Esperando su pago")
	until(t, ctx, "the countdown in days", `/^\d+ días \d+:\d\d:\d\d$/.test(document.getElementById("expires").textContent)`)
	do(t, ctx, "elija USDT", chromedp.Click(css("#tokens input[value='1']")), chromedp.Click(css("#tokens button[type=submit]")),
		chromedp.WaitVisible(css("#address")))
	waitText(t, ctx, "#address-title", "Envíe el pago")
	waitText(t, ctx, "#address", "Precio fijado durante")
	shot(t, ctx, "10-spanish")
	do(t, ctx, "mark the page", chromedp.Evaluate[chromedp.Void](`window.__noReload=1`))
	devnetPay(t, k, id, 5)
	waitText(t, ctx, "#status-text", "envíe el resto")
	waitText(t, ctx, "#amount-token", "7 USDT")
	devnetPay(t, k, id, 0)
	waitText(t, ctx, "#status-text", "Pagado")
	holds(t, ctx, "paid by polling, live", `!document.getElementById("receipt").hidden&&window.__noReload===1`)
	mu.Lock()
	defer mu.Unlock()
	if !streams[401] || streams[200] {
		t.Fatalf("event stream answers %v: the test means a refused stream", streams)
	}
}

// TestRefusedSessionAndSkipInBrowser: a page whose signature the API refuses
// (401: the event stream, then payment-status) stops polling and says, in the
// page's language, that the status is unavailable; "Skip" sends no answers, even
// typed ones, in a browser without SubmitEvent.submitter.
func TestRefusedSessionAndSkipInBrowser(t *testing.T) {
	ctx := browser(t)
	k := startKassa(t, storetest.SQLiteConfig(t))
	// On a page opened with refuse=1 the browser sends a wrong signature; every
	// page counts the 5 s timers set (the next poll) and has no submitter.
	beforeScripts(t, ctx, `(function(){delete SubmitEvent.prototype.submitter;
		var st=window.setTimeout;window.__polls=0;window.setTimeout=function(f,ms){if(ms===5000)window.__polls++;return st.apply(window,arguments)};
		if(location.search.indexOf("refuse=1")<0)return;
		var ES=window.EventSource;window.EventSource=function(u){return new ES(u.replace(/signature=[^&]*/,"signature=00"))};
		window.EventSource.CLOSED=ES.CLOSED;var f=window.fetch;
		window.fetch=function(u,o){if(o&&o.headers)o.headers["x-signature"]="00";return f.apply(window,arguments)}})()`)
	payURL, _ := pageInvoice(t, k, map[string]any{"amount_usd": 9, "invoice_title": "Northwind Goods"})
	do(t, ctx, "open the refused page", chromedp.Navigate(payURL+"&lang=es&refuse=1"), chromedp.WaitReady(css("#status-text")))
	waitText(t, ctx, "#status-text", "El estado del pago no está disponible")
	waitText(t, ctx, "#detected-hint", "El enlace está incompleto o su firma es incorrecta")
	holds(t, ctx, "nothing to pay, no countdown, no next poll", `document.getElementById("open").hidden&&
		document.getElementById("time-left").hidden&&!document.getElementById("detected-hint").hidden&&window.__polls===0`)
	shot(t, ctx, "11-unavailable")

	payURL, id := pageInvoice(t, k, map[string]any{"amount_usd": 9, "invoice_title": "Northwind Goods",
		"questions": map[string]any{"questions": []any{map[string]any{"id": "note", "question": "Gift note?",
			"type": "text", "validation": map[string]any{"required": false}}}}})
	do(t, ctx, "open the page", chromedp.Navigate(payURL), chromedp.WaitVisible(css("#questions")))
	holds(t, ctx, "no SubmitEvent.submitter", `!("submitter" in SubmitEvent.prototype)`)
	do(t, ctx, "type, then skip", chromedp.SendKeys(css("#q-note"), "typed anyway"), chromedp.Click(css("#questions button[name=skip]")),
		chromedp.WaitVisible(css("#tokens")))
	var qs struct {
		Responses []any `json:"responses"`
	}
	session := map[string]string{"x-session-token": sessionOf(t, payURL, "session"), "x-signature": sessionOf(t, payURL, "signature")}
	wantStatus(t, call(t, "GET", k.url+"/api/v1/payments/questions", session, nil, &qs), 200)
	if len(qs.Responses) != 0 {
		t.Fatalf("skipped, yet answers were sent: %v (invoice %s)", qs.Responses, id)
	}
}

// sessionOf reads a query parameter of a payment URL.
func sessionOf(t *testing.T, payURL, name string) string {
	t.Helper()
	u, err := url.Parse(payURL)
	if err != nil {
		t.Fatal(err)
	}
	return u.Query().Get(name)
}

// TestExpiredAndBadLinksInBrowser: an expired invoice says so and offers nothing
// to pay; a link with a bad signature shows the error page and no invoice data.
func TestExpiredAndBadLinksInBrowser(t *testing.T) {
	ctx := browser(t)
	k := startKassa(t, storetest.SQLiteConfig(t))
	payURL, _ := pageInvoice(t, k, map[string]any{"amount_usd": 7, "expires_in": 1000, "invoice_title": "Northwind Goods"})
	time.Sleep(1200 * time.Millisecond)
	do(t, ctx, "open the expired page", chromedp.Navigate(payURL))
	waitText(t, ctx, "#status-text", "expired")
	offers := get(t, ctx, "nothing to pay", chromedp.Evaluate[bool](`!!document.getElementById('tokens')||!!document.getElementById('address')||!!document.getElementById('expires')`))
	if offers {
		t.Fatal("an expired invoice still offers a way to pay or counts down")
	}
	shot(t, ctx, "6-expired")

	bad := payURL[:strings.LastIndex(payURL, "=")+1] + strings.Repeat("0", 64)
	resp, err := http.Get(bad)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("bad signature: HTTP %d, want 401", resp.StatusCode)
	}
	do(t, ctx, "open a bad link", chromedp.Navigate(bad))
	body := get(t, ctx, "error page", chromedp.Text(css("main")))
	if !strings.Contains(body, "does not work") || strings.Contains(body, "7.00") {
		t.Fatalf("error page: %q", body)
	}
	shot(t, ctx, "7-bad-link")
}
