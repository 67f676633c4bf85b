package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"kassa"
	"kassa/store/storetest"
)

// The payment page's browser tests: the real binary in headless Chromium, driven
// through the DevTools protocol (chromedp). They need Debian's chromium
// (/usr/bin/chromium), which .ci/run installs; without it, and outside CI, they
// skip. KASSA_SCREENSHOTS=$PWD/docs/page keeps a screenshot of each state at 1280
// and 375 pixels wide in that folder.

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
	wantStatus(t, call(t, "POST", k.url+"/api/v1/devnet/invoices/"+id+"/payments",
		map[string]string{"x-api-key": k.merchantKey}, body, nil), 201)
}

// browser starts headless Chromium for one test, or skips when there is none
// (never in CI, where .ci/run installs it).
func browser(t *testing.T) context.Context {
	t.Helper()
	path := os.Getenv("KASSA_CHROMIUM")
	if path == "" {
		path, _ = exec.LookPath("chromium")
	}
	if path == "" {
		if os.Getenv("CI") != "" {
			t.Fatal("chromium is not installed; .ci/run installs the Debian package chromium")
		}
		t.Skip("chromium not installed (apt-get install chromium); the payment page browser tests skip")
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(path), chromedp.NoSandbox,
		chromedp.Flag("disable-gpu", true), chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true), chromedp.Flag("ignore-certificate-errors", true),
		chromedp.UserDataDir(t.TempDir()), chromedp.WindowSize(1280, 900))
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx)
	ctx, cancelTimeout := context.WithTimeout(ctx, 2*time.Minute)
	t.Cleanup(func() { cancelTimeout(); cancel(); cancelAlloc() })
	return ctx
}

// do runs chromedp steps and fails the test on error.
func do(t *testing.T, ctx context.Context, what string, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	if err := chromedp.Do(ctx, steps...); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// get runs one action that returns a value and fails the test on error.
func get[T any](t *testing.T, ctx context.Context, what string, a chromedp.Action[T]) T {
	t.Helper()
	v, err := chromedp.Run(ctx, a)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	return v
}

// css is a CSS selector.
func css(s string) chromedp.CSS { return chromedp.CSS(s) }

// waitText waits until the element's text contains want.
func waitText(t *testing.T, ctx context.Context, sel, want string) {
	t.Helper()
	js := `(function(){var e=document.querySelector(` + quote(sel) + `);return !!e && e.textContent.indexOf(` + quote(want) + `)>=0})()`
	get(t, ctx, "wait for "+sel+" to say "+want, chromedp.Poll[bool](js, chromedp.WithPollingTimeout(30*time.Second)))
}

func quote(s string) string { return "'" + strings.ReplaceAll(s, "'", `\'`) + "'" }

// shot keeps a screenshot of the page at 1280 and 375 pixels wide when
// KASSA_SCREENSHOTS names a folder.
func shot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	dir := os.Getenv("KASSA_SCREENSHOTS")
	if dir == "" {
		return
	}
	for _, w := range []int64{1280, 375} {
		do(t, ctx, "viewport", chromedp.EmulateViewport(w, 800), chromedp.Sleep(300*time.Millisecond))
		png := get(t, ctx, "screenshot", chromedp.FullScreenshot(100))
		if err := os.WriteFile(filepath.Join(dir, name+"-"+strconv.FormatInt(w, 10)+".png"), png, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	do(t, ctx, "reset viewport", chromedp.ResetViewport())
}

// TestPayInBrowser answers the questions, chooses a token, sees the address and
// QR, pays half and sees "send the rest" arrive live, pays the rest and sees
// "paid" and the redirect to the shop.
func TestPayInBrowser(t *testing.T) {
	ctx := browser(t)
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

	// Record every request the page makes: all must go to Kassa (until the shop).
	var mu sync.Mutex
	var requested []string
	if err := chromedp.Listen(ctx, func(ev any) {
		if e, ok := ev.(*network.EventRequestWillBeSent); ok {
			mu.Lock()
			requested = append(requested, e.Request.URL)
			mu.Unlock()
		}
	}); err != nil {
		t.Fatal(err)
	}
	do(t, ctx, "open the page", chromedp.Navigate(payURL), chromedp.WaitVisible(css("#questions")))
	// The countdown replaces the server's "2026-… UTC" with the time left, "11:59:58".
	get(t, ctx, "the countdown runs", chromedp.Poll[bool](`/^\d+:\d\d:\d\d$/.test(document.getElementById("expires").textContent)`,
		chromedp.WithPollingTimeout(10*time.Second)))
	shot(t, ctx, "1-questions")
	do(t, ctx, "answer", chromedp.SendKeys(css("#q-size"), "Large"), chromedp.Click(css("#questions button[type=submit]")),
		chromedp.WaitVisible(css("#tokens")))
	shot(t, ctx, "2-tokens")
	do(t, ctx, "choose USDT", chromedp.Click(css("#tokens input[value='1']")), chromedp.Click(css("#tokens button[type=submit]")),
		chromedp.WaitVisible(css("#address")))
	deposit := get(t, ctx, "deposit address", chromedp.Text(css("#deposit")))
	wallet := get(t, ctx, "wallet link", chromedp.AttributeValue(css("#wallet"), "href")).Value
	qrWidth := get(t, ctx, "QR image", chromedp.Poll[int](`document.getElementById('qr').complete && document.getElementById('qr').naturalWidth`))
	if !strings.HasPrefix(deposit, "0x") || len(deposit) != 42 || !strings.HasPrefix(wallet, "ethereum:") || qrWidth < 100 {
		t.Fatalf("address %q, wallet link %q, QR width %d", deposit, wallet, qrWidth)
	}
	waitText(t, ctx, "#amount-token", "20 USDT")
	// From 320 px wide nothing sticks out sideways.
	do(t, ctx, "narrow viewport", chromedp.EmulateViewport(320, 640), chromedp.Sleep(200*time.Millisecond))
	if w := get(t, ctx, "page width", chromedp.Evaluate[int](`document.documentElement.scrollWidth`)); w > 320 {
		t.Errorf("at 320 px the page is %d px wide", w)
	}
	do(t, ctx, "reset viewport", chromedp.ResetViewport())
	shot(t, ctx, "3-address")

	mu.Lock()
	for _, u := range requested {
		if !strings.HasPrefix(u, k.url+"/") {
			t.Errorf("the page requested %s: only Kassa's own URLs are allowed", u)
		}
	}
	if len(requested) < 5 {
		t.Errorf("only %d requests seen: %v", len(requested), requested)
	}
	mu.Unlock()

	devnetPay(t, k, id, 10)
	waitText(t, ctx, "#status-text", "send the rest")
	waitText(t, ctx, "#amount-token", "10 USDT") // a fresh quote for what is left
	waitText(t, ctx, "#remaining", "$10.00")
	shot(t, ctx, "4-partial")

	devnetPay(t, k, id, 0)
	waitText(t, ctx, "#status-text", "Paid")
	do(t, ctx, "receipt", chromedp.WaitVisible(css("#receipt")))
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

// TestExpiredAndBadLinksInBrowser: an expired invoice says so and offers nothing
// to pay; a link with a bad signature shows the error page and no invoice data.
func TestExpiredAndBadLinksInBrowser(t *testing.T) {
	ctx := browser(t)
	k := startKassa(t, storetest.SQLiteConfig(t))
	payURL, _ := pageInvoice(t, k, map[string]any{"amount_usd": 7, "expires_in": 1000, "invoice_title": "Northwind Goods"})
	time.Sleep(1200 * time.Millisecond)
	do(t, ctx, "open the expired page", chromedp.Navigate(payURL))
	waitText(t, ctx, "#status-text", "expired")
	offers := get(t, ctx, "nothing to pay", chromedp.Evaluate[bool](`!!document.getElementById('tokens')||!!document.getElementById('address')`))
	if offers {
		t.Fatal("an expired invoice still offers a way to pay")
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
