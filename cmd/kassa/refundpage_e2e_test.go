package main

import (
	"encoding/json"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/store/storetest"
)

// devchainExplorer is the explorer the refund page test gives the dev chain,
// which has none in the built-in registry.
const devchainExplorer = "https://explorer.devchain.example"

// registryExplorer writes the built-in registry with the dev chain's
// explorer_url set to devchainExplorer and returns its path.
func registryExplorer(t *testing.T) string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "..", "registry", "registry.json"))
	if err != nil {
		t.Fatal(err)
	}
	var reg map[string]any
	if err := json.Unmarshal(raw, &reg); err != nil {
		t.Fatal(err)
	}
	for _, n := range reg["networks"].([]any) {
		if n := n.(map[string]any); n["name"] == "devchain" {
			n["explorer_url"] = devchainExplorer
		}
	}
	path := filepath.Join(t.TempDir(), "registry.json")
	out, _ := json.Marshal(reg)
	if err := os.WriteFile(path, out, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestRefundClaimInBrowser: an invoice paid on the dev chain with kassa pay is
// refunded through a claim link; in Chromium the payor opens the link, sees the
// shop, the amount and the warning, sends a malformed address and gets the error
// in words with what was typed, then a good one with the box ticked, and follows
// the refund live (no reload) to "arrived" with its transaction linked to the
// network's explorer: the exact USDT units are on chain at that address. The page
// fits a 375 px window and its text is readable (contrast 4.5:1).
// KASSA_SCREENSHOTS keeps 14-refund-claim, 15-refund-error and
// 16-refund-arrived at 1280 and 375 px.
func TestRefundClaimInBrowser(t *testing.T) {
	ctx := browser(t)
	k := startKassa(t, storetest.SQLiteConfig(t), "--registry-file", registryExplorer(t))
	payURL, id := pageInvoice(t, k, map[string]any{"amount_usd": 12.5})
	kassaPay(t, k, payURL)
	waitSettled(t, k, id)
	ref := createRefund(t, k, id, map[string]any{"amount_usd": 5, "reason": "one mug arrived broken"})
	link, _ := ref["claim_url"].(string)
	if ref["status"] != "awaiting_address" || !strings.HasPrefix(link, k.url+"/refund/") {
		t.Fatalf("refund %v", ref)
	}
	const payor = "0x00000000000000000000000000000000000b0b04"

	readable := func(name string) {
		t.Helper()
		if bad := get(t, ctx, "contrast", chromedp.Evaluate[[]string](lowContrastJS)); len(bad) > 0 {
			t.Errorf("%s: contrast below 4.5:1: %s", name, bad)
		}
		viewport(t, ctx, 375, 800)
		if w := get(t, ctx, "page width", chromedp.Evaluate[int](`document.documentElement.scrollWidth`)); w > 375 {
			t.Errorf("%s: the page is %d px wide in a 375 px window", name, w)
		}
		do(t, ctx, "reset viewport", chromedp.ResetViewport())
	}

	do(t, ctx, "open the claim link", chromedp.Navigate(link), chromedp.WaitVisible(css("#claim")))
	for _, want := range []string{devName, "5 USDT", "$5.00", "Kassa Dev Chain", "exchange"} {
		waitText(t, ctx, "main", want)
	}
	holds(t, ctx, "no merchant-only field", `document.body.textContent.indexOf("one mug arrived broken")<0`)
	readable("claim")
	shot(t, ctx, "14-refund-claim")

	do(t, ctx, "a malformed address", chromedp.SendKeys(css("#address"), "0x12345"), chromedp.Click(css("#confirm")),
		chromedp.Click(css("#claim button[type=submit]")), chromedp.WaitVisible(css("#address-error")))
	waitText(t, ctx, "#address-error", "This is not an address")
	holds(t, ctx, "what was typed is kept", `document.getElementById("address").value==="0x12345"`)
	holds(t, ctx, "the box is to tick again", `!document.getElementById("confirm").checked`)
	readable("error")
	shot(t, ctx, "15-refund-error")

	do(t, ctx, "the payor's address, confirmed", chromedp.Evaluate[chromedp.Void](`document.getElementById("address").value=""`), chromedp.SendKeys(css("#address"), payor),
		chromedp.Click(css("#confirm")), chromedp.Click(css("#claim button[type=submit]")), chromedp.WaitVisible(css("#details")))
	waitText(t, ctx, "#address-to", kassa.ChecksumAddress(payor))
	waitText(t, ctx, ".notice", "your address is saved")
	// Live from here: the page is not reloaded (the marker would be gone).
	do(t, ctx, "mark the page", chromedp.Evaluate[chromedp.Void](`window.sameLoad=true`))
	waitText(t, ctx, "#status-text", "Your refund has arrived")
	holds(t, ctx, "followed without a reload", `window.sameLoad===true`)
	href := get(t, ctx, "the transaction link", chromedp.Evaluate[string](`document.getElementById("tx").href`))
	done := waitRefund(t, k, ref["id"].(string))
	hash, _ := done["tx_hash"].(string)
	if hash == "" || href != devchainExplorer+"/tx/"+hash {
		t.Fatalf("transaction link %q, refund %v", href, done)
	}
	hashes, sum := transfersTo(t, k.chainURL, payor)
	if len(hashes) != 1 || !strings.EqualFold(hashes[0], hash) || sum.Cmp(big.NewInt(5_000_000)) != 0 {
		t.Fatalf("transfers to the payor %v (%s units), refund %s", hashes, sum, hash)
	}
	readable("arrived")
	shot(t, ctx, "16-refund-arrived")
	stopGracefully(t, k)
}
