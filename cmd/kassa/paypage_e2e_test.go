package main

import (
	"math/big"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/store/storetest"
)

// The payment page's browser tests: the real binary in headless Chromium (the
// helpers are in browser_test.go). KASSA_SCREENSHOTS=$PWD/docs/page keeps a
// screenshot of each state at 1280 and 375 pixels wide in that folder.

// pageInvoice creates a devnet invoice with the demo merchant key and returns
// its payment URL and id.
func pageInvoice(t *testing.T, k *instance, body map[string]any) (string, string) {
	t.Helper()
	var out struct {
		PaymentURL string `json:"payment_url"`
		InvoiceID  string `json:"invoice_id"`
	}
	auth := map[string]string{"x-api-key": k.merchantKey, "Idempotency-Key": kassa.NewUUID()}
	wantStatus(t, call(t, "POST", k.url+"/api/v1/invoices", auth, body, &out), 201)
	return out.PaymentURL, out.InvoiceID
}

// devnetPay pays amount USD of an invoice on devnet, or what is left when 0.
func devnetPay(t *testing.T, k *instance, id string, amount float64) {
	t.Helper()
	body := map[string]any{}
	if amount > 0 {
		body["amount_usd"] = amount
	}
	devnetPayment(t, k, id, body)
}

// devnetPayment simulates a devnet transfer with the given body (amount_usd,
// status, tx_hash, token_id).
func devnetPayment(t *testing.T, k *instance, id string, body map[string]any) {
	t.Helper()
	wantStatus(t, call(t, "POST", k.url+"/api/v1/devnet/invoices/"+id+"/payments",
		map[string]string{"x-api-key": k.merchantKey}, body, nil), 201)
}

// units reads a token amount such as "0.0083" as base units of a token with decimals.
func units(t *testing.T, amount string, decimals int) string {
	t.Helper()
	whole, frac, _ := strings.Cut(amount, ".")
	if len(frac) > decimals {
		t.Fatalf("amount %q has more than %d decimals", amount, decimals)
	}
	n, ok := new(big.Int).SetString(whole+frac+strings.Repeat("0", decimals-len(frac)), 10)
	if !ok {
		t.Fatalf("amount %q", amount)
	}
	return n.String()
}

// TestPayInBrowser answers the questions, chooses a token, sees the address and
// QR, has an expired price lock quoted again, sees a payment detected, pays half
// and sees "send the rest" arrive live (no reload), pays some more and gets a
// fresh quote, pays the rest and sees "paid" and the redirect to the shop.
func TestPayInBrowser(t *testing.T) {
	ctx := browser(t)
	rates := filepath.Join(t.TempDir(), "rates.json") // no SepoliaETH price: that token shows disabled
	if err := os.WriteFile(rates, []byte(`{"tBNB": "600.00", "BNB": "600.00", "ETH": "3000.00"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("KASSA_RATES_FILE", rates)
	k := startKassa(t, storetest.SQLiteConfig(t))
	shop := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte("<!doctype html><title>Shop</title><h1>Thanks for your order</h1>"))
	}))
	defer shop.Close()
	payURL, id := pageInvoice(t, k, map[string]any{"amount_usd": 20, "description": "Two ceramic mugs",
		"invoice_title": "Northwind Goods", "invoice_footer": "Northwind Goods · help@northwind.example",
		"payment_return_url": shop.URL + "/thanks",
		"questions": map[string]any{"questions": []any{map[string]any{"id": "size", "question": "Mug size?",
			"type": "text", "validation": map[string]any{"required": true}}}}})
	// The browser's clock is two hours fast: the page counts down by the server's.
	beforeScripts(t, ctx, `(function(){var now=Date.now;Date.now=function(){return now()+2*3600*1000}})()`)

	// Record every request the page makes: all must go to Kassa (until the shop).
	var mu sync.Mutex
	var requested []string
	if err := chromedp.Listen(ctx, func(ev any) {
		if e, ok := ev.(*network.EventRequestWillBeSent); ok {
			mu.Lock()
			requested = append(requested, e.Request.Method+" "+e.Request.URL)
			mu.Unlock()
		}
	}); err != nil {
		t.Fatal(err)
	}
	do(t, ctx, "open the page", chromedp.Navigate(payURL), chromedp.WaitVisible(css("#questions")))
	// The countdown replaces the server's "12 h 0 min" with the time left,
	// "11:59:58", by the server's clock (the browser's would say "9:59:58").
	get(t, ctx, "the countdown runs", chromedp.Poll[bool](`/^\d+:\d\d:\d\d$/.test(document.getElementById("expires").textContent)`,
		chromedp.WithPollingTimeout(10*time.Second)))
	holds(t, ctx, "the countdown by the server's clock", `/^11:5\d:\d\d$/.test(document.getElementById("expires").textContent)`)
	// At 375 px the language links stay beside the title, the first one not indented.
	viewport(t, ctx, 375, 800)
	holds(t, ctx, "language links beside the title at 375 px", `(function(){var h=document.querySelector(".head h1").getBoundingClientRect(),
		n=document.querySelector(".langs").getBoundingClientRect(),a=document.querySelector(".langs a").getBoundingClientRect();
		return n.top<h.bottom&&Math.abs(a.left-n.left)<0.5})()`)
	do(t, ctx, "reset viewport", chromedp.ResetViewport())
	shot(t, ctx, "1-questions")
	do(t, ctx, "answer", chromedp.SendKeys(css("#q-size"), "Large"), chromedp.Click(css("#questions button[type=submit]")),
		chromedp.WaitVisible(css("#tokens")))
	// The focus moves to the next step's heading.
	until(t, ctx, "focus on the token choice", `document.activeElement===document.querySelector("#tokens h2")`)
	// A token without a rate is disabled, its text still readable (4.5:1 or more).
	holds(t, ctx, "contrast of a disabled token", `(function(){`+contrastJS+`
		var small=document.querySelectorAll(".token.off small");if(small.length<2)return false;
		for(var i=0;i<small.length;i++)if(contrast(small[i])<4.5)return false;return true})()`)
	shot(t, ctx, "2-tokens")
	do(t, ctx, "choose USDT", chromedp.Click(css("#tokens input[value='1']")), chromedp.Click(css("#tokens button[type=submit]")),
		chromedp.WaitVisible(css("#address")))
	until(t, ctx, "focus on the address", `document.activeElement===document.getElementById("address-title")`)
	deposit := get(t, ctx, "deposit address", chromedp.Text(css("#deposit")))
	wallet := get(t, ctx, "wallet link", chromedp.AttributeValue(css("#wallet"), "href")).Value
	qrWidth := get(t, ctx, "QR image", chromedp.Poll[int](`document.getElementById('qr').complete && document.getElementById('qr').naturalWidth`))
	// EIP-681 for an ERC-20: ethereum:<token>@<chainId>/transfer?address=<to>&uint256=<units>.
	usdt := "ethereum:0x337610d27c682E347C9cD60BD4b3b107C9d34dDd@97/transfer?address=" + kassa.ChecksumAddress(deposit) + "&uint256="
	if !strings.HasPrefix(deposit, "0x") || len(deposit) != 42 || wallet != usdt+"20000000000000000000" || qrWidth < 100 {
		t.Fatalf("address %q, wallet link %q, QR width %d", deposit, wallet, qrWidth)
	}
	waitText(t, ctx, "#amount-token", "20 USDT")
	// From 320 px wide nothing sticks out sideways.
	viewport(t, ctx, 320, 640)
	if w := get(t, ctx, "page width", chromedp.Evaluate[int](`document.documentElement.scrollWidth`)); w > 320 {
		t.Errorf("at 320 px the page is %d px wide", w)
	}
	do(t, ctx, "reset viewport", chromedp.ResetViewport())
	shot(t, ctx, "3-address")
	// Copying says "Copied" to screen readers too.
	until(t, ctx, "the script shows the copy buttons", `!document.getElementById("copy-amount").hidden`)
	do(t, ctx, "copy the amount", chromedp.Click(css("#copy-amount")))
	waitText(t, ctx, "#announce", "Copied")

	// quotes counts the page's requests for a quote, checking that every request
	// went to Kassa.
	quotes := func() int {
		mu.Lock()
		defer mu.Unlock()
		n := 0
		for _, u := range requested {
			if !strings.HasPrefix(u, "GET "+k.url+"/") && !strings.HasPrefix(u, "POST "+k.url+"/") {
				t.Errorf("the page requested %s: only Kassa's own URLs are allowed", u)
			}
			if u == "POST "+k.url+"/api/v1/payments/payment-address" {
				n++
			}
		}
		return n
	}
	// The lock counts down by the server's clock too: the fast browser clock
	// has not run it out, so the token choice is the only quote so far.
	holds(t, ctx, "the lock by the server's clock", `/^1[45]:\d\d$/.test(document.getElementById("quote").textContent)`)
	if n := quotes(); n != 1 {
		t.Errorf("%d quotes before the lock ran out, want 1 (the token choice)", n)
	}
	// The price lock runs out (the page is told it ended in 2000): the page asks
	// for a quote again and shows it, without a reload; the server still holds
	// its quote, so the lock is back in the future.
	do(t, ctx, "mark the page, run out the lock", chromedp.Evaluate[chromedp.Void](
		`window.__noReload=1;document.getElementById("amount-token").textContent="stale";
		document.getElementById("quote").setAttribute("datetime","2000-01-01T00:00:00.000Z")`))
	waitText(t, ctx, "#amount-token", "20 USDT")
	until(t, ctx, "the lock shows time left again", `document.getElementById("quote").getAttribute("datetime")>"2001"&&
		/^1[45]:\d\d$/.test(document.getElementById("quote").textContent)`)
	if n := quotes(); n < 2 {
		t.Errorf("%d quotes: the lock that ran out was not quoted again", n)
	}
	mu.Lock()
	if len(requested) < 5 {
		t.Errorf("%d requests: %v", len(requested), requested)
	}
	mu.Unlock()

	// A payment seen but not confirmed: nothing more is asked meanwhile.
	hash := "0x" + strings.Repeat("5a", 32)
	devnetPayment(t, k, id, map[string]any{"amount_usd": 10, "status": "pending", "tx_hash": hash})
	waitText(t, ctx, "#status-text", "Payment detected: 0/3 confirmations")
	waitText(t, ctx, "#payments", "pending · 0/3 confirmations")
	holds(t, ctx, "nothing to pay while detected", `document.getElementById("address").hidden&&!!document.querySelector("details.change").hidden`)
	shot(t, ctx, "8-detected")
	devnetPayment(t, k, id, map[string]any{"amount_usd": 10, "tx_hash": hash})
	waitText(t, ctx, "#status-text", "send the rest")
	waitText(t, ctx, "#amount-token", "10 USDT") // a fresh quote for what is left
	waitText(t, ctx, "#remaining", "$10.00")
	until(t, ctx, "the wallet link asks for the rest", `document.getElementById("wallet").getAttribute("href")===`+quote(usdt+"10000000000000000000"))
	holds(t, ctx, "the address is back", `!document.getElementById("address").hidden`)
	shot(t, ctx, "4-partial")
	// A second partial payment: the quote follows again. What is left has a
	// fraction of a cent, shown exactly as the server's rule does (issue 37,
	// finding 4): "$6.005", never "$6.01" beside "6.005 USDT".
	devnetPay(t, k, id, 3.995)
	waitText(t, ctx, "#amount-token", "6.005 USDT")
	until(t, ctx, "the copy button copies the rest", `document.getElementById("copy-amount").dataset.copy==="6.005"`)
	until(t, ctx, "the wallet link asks for the rest", `document.getElementById("wallet").getAttribute("href")===`+quote(usdt+"6005000000000000000"))
	until(t, ctx, "the amounts by the one rule", `document.getElementById("remaining").textContent==="$6.005"&&document.getElementById("paid").textContent==="$13.995"`)
	holds(t, ctx, "updated live, not reloaded", `window.__noReload===1`)

	devnetPay(t, k, id, 0)
	waitText(t, ctx, "#status-text", "Paid")
	holds(t, ctx, "paid: receipt, no time left, no reload", `!document.getElementById("receipt").hidden&&document.getElementById("time-left").hidden&&
		/^\d{4}-\d\d-\d\d \d\d:\d\d UTC$/.test(document.getElementById("receipt-date").textContent)&&window.__noReload===1`)
	shot(t, ctx, "5-paid")
	// The page sends the payor back to the shop by itself. The navigation may be
	// under way while we look, so errors only mean "look again".
	want := shop.URL + "/thanks|Thanks for your order"
	seen := ""
	for end := time.Now().Add(20 * time.Second); time.Now().Before(end) && seen != want; time.Sleep(200 * time.Millisecond) {
		seen, _ = chromedp.Run(ctx, chromedp.Evaluate[string](
			`location.href + "|" + (document.querySelector("h1") ? document.querySelector("h1").textContent : "")`))
	}
	if seen != want {
		t.Fatalf("the paid page did not return to the shop: last seen %q", seen)
	}
}

// TestNativeTokenAndCancelInBrowser: a native token's wallet link is the EIP-681
// value transfer; the merchant cancels and the page says so live.
func TestNativeTokenAndCancelInBrowser(t *testing.T) {
	ctx := browser(t)
	k := startKassa(t, storetest.SQLiteConfig(t))
	payURL, id := pageInvoice(t, k, map[string]any{"amount_usd": 5, "invoice_title": "Northwind Goods", "description": "A teapot"})
	do(t, ctx, "open the page", chromedp.Navigate(payURL), chromedp.WaitVisible(css("#tokens")))
	do(t, ctx, "choose tBNB", chromedp.Click(css("#tokens input[value='3']")), chromedp.Click(css("#tokens button[type=submit]")),
		chromedp.WaitVisible(css("#address")))
	deposit := get(t, ctx, "deposit address", chromedp.Text(css("#deposit")))
	amount := strings.TrimSuffix(get(t, ctx, "amount", chromedp.Text(css("#amount-token"))), " tBNB")
	wallet := get(t, ctx, "wallet link", chromedp.AttributeValue(css("#wallet"), "href")).Value
	// EIP-681 for the chain's own coin: ethereum:<to>@<chainId>?value=<units>.
	if want := "ethereum:" + kassa.ChecksumAddress(deposit) + "@97?value=" + units(t, amount, 18); wallet != want {
		t.Fatalf("wallet link %q, want %q", wallet, want)
	}
	do(t, ctx, "mark the page", chromedp.Evaluate[chromedp.Void](`window.__noReload=1`))
	wantStatus(t, call(t, "POST", k.url+"/api/v1/invoices/"+id+"/cancel", map[string]string{"x-api-key": k.merchantKey}, nil, nil), 200)
	waitText(t, ctx, "#status-text", "canceled")
	holds(t, ctx, "canceled: nothing to pay, no time left, live", `document.getElementById("open").hidden&&
		document.getElementById("time-left").hidden&&document.getElementById("receipt").hidden&&window.__noReload===1`)
	shot(t, ctx, "9-canceled")
}
