package main

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// The dashboard's browser tests: the real binary (SQLite) in headless Chromium.
// Every page visited passes dashTab.check (no console errors or CSP violations,
// keyboard order, contrast, no sideways scroll at 375 px).
// KASSA_SCREENSHOTS=$PWD/docs/dashboard keeps each screen at 1280 and 375 px.

// TestDashboardBrowserSignIn: the dashboard sends a stranger to the sign-in
// form; a wrong password says so; the right one opens the overview; signing out
// ends the session.
func TestDashboardBrowserSignIn(t *testing.T) {
	d := openDashboard(t)
	d.open("/dashboard", "01-sign-in")
	d.at("/dashboard/login")
	do(t, d.ctx, "a wrong password", chromedp.SendKeys(css("#email"), d.k.email), chromedp.SendKeys(css("#password"), "not the password"),
		chromedp.Click(css("main button[type=submit]")), chromedp.WaitVisible(css("main .error")))
	waitText(t, d.ctx, "main .error", "The email or password is incorrect.")
	d.check("02-sign-in-error")
	d.signIn()
	d.at("/dashboard")
	d.check("03-overview")
	do(t, d.ctx, "sign out", chromedp.Click(css("header form[action='/dashboard/logout'] button")), chromedp.WaitVisible(css("#email")))
	d.at("/dashboard/login")
	d.open("/dashboard/invoices", "") // the session ended in the store too
	d.at("/dashboard/login")
}

// TestDashboardBrowserKeyboard: Enter on the focused skip link moves to the
// content; Tab to each section's link and Enter opens it, without a mouse.
func TestDashboardBrowserKeyboard(t *testing.T) {
	d := openSignedIn(t)
	// The CSP listener works: an image from another site is refused and reported.
	do(t, d.ctx, "load a foreign image", chromedp.Evaluate[chromedp.Void](
		`var i=document.createElement("img");i.src="https://example.invalid/x.png";document.body.appendChild(i)`))
	var seen string
	for deadline := time.Now().Add(10 * time.Second); !strings.Contains(seen, "CSP violation: img-src"); {
		if time.Now().After(deadline) {
			t.Fatalf("a refused image was not reported as a CSP violation within 10 s: %q", seen)
		}
		d.settle()
		d.mu.Lock()
		seen += strings.Join(d.problems, "\n")
		d.problems = nil
		d.mu.Unlock()
	}
	do(t, d.ctx, "Tab, Enter on the skip link", chromedp.Navigate(d.path("/dashboard")), chromedp.KeyEvent("\t"), chromedp.KeyEvent("\r"))
	d.waitFor("the skip link moves to the content", `location.hash==="#main"`)
	links := get(t, d.ctx, "section links", chromedp.Evaluate[[]string](
		`Array.prototype.map.call(document.querySelectorAll("header.top nav a"),function(a){return a.pathname})`))
	if len(links) < 4 {
		t.Fatalf("section links %v", links)
	}
	for i, path := range links {
		do(t, d.ctx, "from the top", chromedp.Navigate(d.path("/dashboard/reports")), chromedp.WaitReady(css("main")))
		for range i + 3 { // the skip link, the brand, then the sections
			do(t, d.ctx, "Tab", chromedp.KeyEvent("\t"))
		}
		do(t, d.ctx, "Enter on "+path, chromedp.KeyEvent("\r"))
		d.waitFor("Enter opens "+path, `location.pathname===`+quote(path)+`&&document.readyState==="complete"`)
		d.noProblems(path)
	}
}

// TestDashboardBrowserNewInvoice: the "New invoice" form makes an invoice and
// shows its payment link and QR code; its page later does not show the link.
func TestDashboardBrowserNewInvoice(t *testing.T) {
	d := openSignedIn(t)
	d.open("/dashboard/invoices", "04-invoices")
	do(t, d.ctx, "New invoice", chromedp.Click(css("main a[href='/dashboard/invoices/new']")), chromedp.WaitVisible(css("#amount_usd")))
	d.check("05-invoice-new")
	payURL, id := d.createInvoice("12.50", "Blue teapot")
	waitText(t, d.ctx, "main h1", "$12.50")
	waitText(t, d.ctx, "main .badge", "Awaiting payment")
	if w := get(t, d.ctx, "QR", chromedp.Poll[int](`document.querySelector("img.qr").complete&&document.querySelector("img.qr").naturalWidth`)); w < 100 {
		t.Errorf("QR %d px wide", w)
	}
	if resp, err := http.Get(payURL); err != nil || resp.StatusCode != 200 {
		t.Fatalf("the payment link %s: %v %v", payURL, resp, err)
	}
	d.check("06-invoice-created")
	d.open("/dashboard/invoices/"+id, "07-invoice")
	holds(t, d.ctx, "the link is shown once", `!document.querySelector(".created")&&document.querySelector("main").textContent.indexOf("Blue teapot")>=0`)
}

// createInvoice fills and sends the "New invoice" form; it returns the payment
// link the answer shows and the invoice id.
func (d *dashTab) createInvoice(amount, description string) (string, string) {
	d.t.Helper()
	do(d.t, d.ctx, "new invoice", chromedp.Navigate(d.path("/dashboard/invoices/new")), chromedp.WaitVisible(css("#amount_usd")),
		chromedp.SendKeys(css("#amount_usd"), amount), chromedp.SendKeys(css("#description"), description),
		chromedp.Click(css("main button[type=submit]")), chromedp.WaitVisible(css(".created input.copy")))
	payURL := get(d.t, d.ctx, "payment link", chromedp.Evaluate[string](`document.querySelector(".created input.copy").value`))
	id := get(d.t, d.ctx, "invoice id", chromedp.Evaluate[string](`document.querySelector("[data-invoice]").dataset.invoice`))
	if !strings.HasPrefix(payURL, d.k.url+"/pay/"+id+"?") {
		d.t.Fatalf("payment link %q for invoice %q", payURL, id)
	}
	return payURL, id
}

// follow runs steps that leave the page (a link, a form) and waits for the
// next page to load: a mark set on the page being left is gone and the new
// document is complete, so no check reads the old page or a half-parsed one.
func (d *dashTab) follow(what string, steps ...chromedp.Action[chromedp.Void]) {
	d.t.Helper()
	do(d.t, d.ctx, "mark the page", chromedp.Evaluate[chromedp.Void](`window.kassaLeaving=true`))
	do(d.t, d.ctx, what, steps...)
	d.waitFor(what, `!window.kassaLeaving&&document.readyState==="complete"`)
}

// waitFor polls a JavaScript condition for 30 s, across navigations.
func (d *dashTab) waitFor(what, js string) {
	d.t.Helper()
	for end := time.Now().Add(30 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		if ok, err := chromedp.Run(d.ctx, chromedp.Evaluate[bool](js)); err == nil && ok {
			return
		}
		if time.Now().After(end) {
			d.t.Fatalf("%s: %s never held; the page %s says %q", what, js, get(d.t, d.ctx, "location", chromedp.Location()),
				get(d.t, d.ctx, "main", chromedp.Evaluate[string](`document.querySelector("main")?document.querySelector("main").innerText.slice(0,600):""`)))
		}
	}
}

// TestDashboardBrowserAPIKey: a key made in the form is shown once and works;
// revoked (after a confirmation) it no longer does.
func TestDashboardBrowserAPIKey(t *testing.T) {
	d := openSignedIn(t)
	d.open("/dashboard/developers/api-keys", "08-api-keys")
	do(t, d.ctx, "create a key", chromedp.SendKeys(css("#name"), "ci server"), chromedp.Click(css("main form[action='/dashboard/developers/api-keys'] button")),
		chromedp.WaitVisible(css(".created input.copy")))
	secret := get(t, d.ctx, "the secret", chromedp.Evaluate[string](`document.querySelector(".created input.copy").value`))
	if !strings.HasPrefix(secret, "kassa_devnet_merchant_") {
		t.Fatalf("secret %q", secret)
	}
	d.check("09-api-key-created")
	wantStatus(t, call(t, "GET", d.k.url+"/api/v1/invoices", map[string]string{"x-api-key": secret}, nil, nil), 200)
	d.open("/dashboard/developers/api-keys", "")
	holds(t, d.ctx, "the secret is shown once", `!document.querySelector(".created")&&document.body.textContent.indexOf(`+quote(secret)+`)<0`)
	do(t, d.ctx, "mark the new key's row", chromedp.Evaluate[chromedp.Void](`Array.prototype.find.call(document.querySelectorAll("main tbody tr"),
		function(tr){return tr.cells[0].textContent==="ci server"}).id="new-key"`))
	do(t, d.ctx, "revoke", chromedp.SendKeys(css("#new-key input[name=reason]"), "rotated"), chromedp.Click(css("#new-key button.danger")))
	d.waitFor("revoked", `Array.prototype.some.call(document.querySelectorAll("main tbody tr"),function(tr){
		return tr.cells[0].textContent==="ci server"&&tr.querySelector(".badge").textContent==="revoked"&&tr.textContent.indexOf("rotated")>0})`)
	holds(t, d.ctx, "asked first", `/^Revoke this key/.test(sessionStorage.getItem("confirmed"))`)
	wantStatus(t, call(t, "GET", d.k.url+"/api/v1/invoices", map[string]string{"x-api-key": secret}, nil, nil), 401)
	d.check("10-api-key-revoked")
}

// TestDashboardBrowserWebhook: an endpoint on loopback (allowed over http on
// devnet) made in the form gets the test event; its log shows the delivery.
func TestDashboardBrowserWebhook(t *testing.T) {
	var mu sync.Mutex
	got := 0
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got++
		mu.Unlock()
		_, _ = w.Write([]byte("thanks"))
	}))
	defer hook.Close()
	d := openDashboard(t)
	pageInvoice(t, d.k, map[string]any{"amount_usd": 3, "description": "For the test event"})
	d.signIn()
	d.open("/dashboard/developers/webhooks", "11-webhooks")
	holds(t, d.ctx, "all events ticked at first", `document.querySelector("input[name=events][value='*']").checked`)
	do(t, d.ctx, "add an endpoint", chromedp.SendKeys(css("#url"), hook.URL+"/kassa"),
		chromedp.Click(css("main form[action='/dashboard/developers/webhooks'] button[type=submit]")))
	d.waitFor("the endpoint's page", `!!document.querySelector("form[action$='/test']")`)
	d.check("12-webhook")
	do(t, d.ctx, "send a test event", chromedp.Click(css("form[action$='/test'] button")))
	d.waitFor("sent", `location.search==="?done=test"&&document.readyState==="complete"`)
	for end := time.Now().Add(30 * time.Second); ; time.Sleep(500 * time.Millisecond) {
		do(t, d.ctx, "reload", chromedp.Reload(), chromedp.WaitReady(css("main")))
		if get(t, d.ctx, "the log", chromedp.Evaluate[bool](`(function(){var t=document.querySelector("main tbody");
			return !!t&&t.textContent.indexOf("HTTP 200")>=0&&t.textContent.indexOf("body not kept")>=0&&!!t.querySelector(".badge.succeeded")})()`)) {
			break
		}
		if time.Now().After(end) {
			t.Fatal("the delivery never showed in the endpoint's log")
		}
	}
	mu.Lock()
	if got == 0 {
		t.Error("the endpoint got no request")
	}
	mu.Unlock()
	d.check("13-webhook-delivered")
	d.open("/dashboard/developers/events", "14-events")
	holds(t, d.ctx, "the event listed", `document.querySelectorAll("main .events li").length>0`)

	// The API reference, from the Developers section: a page of its own (no
	// dashboard header), held to the same contrast, width and CSP checks.
	d.follow("open the API reference", chromedp.Click(css(`nav.subnav a[href="/docs"]`)))
	d.at("/docs")
	holds(t, d.ctx, "the create-invoice operation", `document.getElementById("createInvoice")!==null`)
	for _, b := range get(t, d.ctx, "contrast", chromedp.Evaluate[[]string](lowContrastJS)) {
		t.Errorf("API reference: contrast below 4.5:1: %s", b)
	}
	viewport(t, d.ctx, 375, 800)
	if w := get(t, d.ctx, "page width", chromedp.Evaluate[int](`document.documentElement.scrollWidth`)); w > 375 {
		t.Errorf("API reference: at 375 px the page is %d px wide", w)
	}
	do(t, d.ctx, "reset viewport", chromedp.ResetViewport())
	d.noProblems("API reference")
}
