package main

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/kassapay/kassa/store/storetest"
)

// TestSetAsideWordsInBrowser: the payment page follows a payment set aside live
// (no reload) and says what became of it in words, as the server's page does:
// money in another token waits for the shop, then the shop kept it without
// counting it.
func TestSetAsideWordsInBrowser(t *testing.T) {
	ctx := browser(t)
	k := startKassa(t, storetest.SQLiteConfig(t))
	payURL, id := pageInvoice(t, k, map[string]any{"amount_usd": 10})
	devnetPay(t, k, id, 4) // USDT on BNB Smart Chain Testnet, locked by the first payment
	do(t, ctx, "open the page", chromedp.Navigate(payURL), chromedp.WaitVisible(css("#payments li")))
	do(t, ctx, "mark the page", chromedp.Evaluate[chromedp.Void](`window.sameLoad=true`))

	var out struct {
		Payment struct {
			ID string `json:"id"`
		} `json:"payment"`
	}
	wantStatus(t, call(t, "POST", k.url+"/api/v1/devnet/invoices/"+id+"/payments", map[string]string{"x-api-key": k.merchantKey},
		map[string]any{"token_id": 3, "amount_usd": 2, "tx_hash": "0x" + strings.Repeat("cd", 32)}, &out), 201)
	waitText(t, ctx, "#payments", "sent in a token or on a network other than the one chosen: the shop will review it")
	wantStatus(t, call(t, "POST", k.url+"/api/v1/invoices/"+id+"/payments/"+out.Payment.ID+"/dismiss",
		map[string]string{"x-api-key": k.merchantKey}, map[string]any{}, nil), 200)
	waitText(t, ctx, "#payments", "the shop kept this payment without counting it toward this invoice; contact the shop")
	holds(t, ctx, "followed without a reload", `window.sameLoad===true`)
	holds(t, ctx, "the counted payment stays confirmed", `/ confirmed/.test(document.getElementById("payments").textContent)`)
}
