package main

import (
	"math/big"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/kassapay/kassa/devchain"
)

// TestDashboardBrowserRefundOwnWallet: on the real binary with the dev chain, a
// refund larger than the gas wallet holds (100,000 USDT) waits pending with the
// reason; the invoice page offers to pay it from the merchant's own wallet, asks
// first, then shows the transfer's EIP-681 link and QR code and waits; a
// transfer made from that very link (parsed from the page, signed with
// go-ethereum by another dev account) makes the refund confirmed with it, the
// invoice's amount_refunded set, and the page shows the transaction.
func TestDashboardBrowserRefundOwnWallet(t *testing.T) {
	d := openSignedIn(t)
	k := d.k
	payURL, id := pageInvoice(t, k, map[string]any{"amount_usd": 150000})
	kassaPay(t, k, payURL)
	const payor = "0x00000000000000000000000000000000000b0b05"
	ref := createRefund(t, k, id, map[string]any{"amount_usd": 120000, "address": payor})
	rid := ref["id"].(string)
	for end := time.Now().Add(60 * time.Second); ; time.Sleep(250 * time.Millisecond) {
		var r map[string]any
		wantStatus(t, call(t, "GET", k.url+"/api/v1/refunds/"+rid, map[string]string{"x-api-key": k.merchantKey}, nil, &r), 200)
		if r["status"] == "pending" && r["failure_reason"] != nil {
			break
		}
		if time.Now().After(end) {
			t.Fatalf("the refund never waited with a reason: %v", r)
		}
	}

	page := "/dashboard/invoices/" + id
	d.open(page, "")
	d.follow("pay it from my own wallet", chromedp.Click(css(`main form[action$="/refunds/`+rid+`/own-wallet"] button`)))
	holds(t, d.ctx, "asked first", `/^Pay this refund from your own wallet\?/.test(sessionStorage.getItem("confirmed"))`)
	d.waitFor("waiting for the transfer", `document.querySelector("main").textContent.indexOf("Waiting for your transfer.")>=0`)
	d.at(page)
	d.open(page, "40-refund-own-wallet") // as served, without the fragment the form went back to
	holds(t, d.ctx, "the QR code is drawn", `(function(){var i=document.querySelector("#refund-`+rid+` img.qr");return !!i&&i.complete&&i.naturalWidth>100})()`)
	link := get(t, d.ctx, "the wallet link", chromedp.Evaluate[string](`document.querySelector("#refund-`+rid+` a[href^='ethereum:']").getAttribute("href")`))
	hash := payFromLink(t, k.chainURL, devchain.Accounts()[5].PrivateKey, link)

	done := waitRefund(t, k, rid)
	if !strings.EqualFold(done["tx_hash"].(string), hash) {
		t.Fatalf("refund %v, want the transfer %s", done, hash)
	}
	var inv struct {
		AmountRefunded int64 `json:"amount_refunded"`
	}
	wantStatus(t, call(t, "GET", k.url+"/api/v1/invoices/"+id, map[string]string{"x-api-key": k.merchantKey}, nil, &inv), 200)
	if inv.AmountRefunded != 120_000_000 {
		t.Fatalf("amount_refunded %d", inv.AmountRefunded)
	}
	d.open(page, "41-refund-own-wallet-paid")
	holds(t, d.ctx, "the page shows the transaction", `document.querySelector("#refund-`+rid+`").textContent.indexOf("Paid from your own wallet")>=0&&
		document.querySelector("#refund-`+rid+`").textContent.indexOf(`+quote(strings.ToLower(hash))+`)>=0`)
}

// eip681 is an ERC-20 transfer link: ethereum:<contract>@<chain>/transfer?address=<to>&uint256=<units>.
var eip681 = regexp.MustCompile(`^ethereum:(0x[0-9a-fA-F]{40})@([0-9]+)/transfer\?address=(0x[0-9a-fA-F]{40})&uint256=([0-9]+)$`)

// payFromLink signs and sends the ERC-20 transfer link asks for from the
// account of key, for the link's chain id, as a wallet would, waits for its
// receipt and returns its hash.
func payFromLink(t *testing.T, url, key, link string) string {
	t.Helper()
	m := eip681.FindStringSubmatch(link)
	if m == nil {
		t.Fatalf("not an ERC-20 transfer link: %q", link)
	}
	chainID, _ := new(big.Int).SetString(m[2], 10)
	units, _ := new(big.Int).SetString(m[4], 10)
	return sendToken(t, url, key, chainID, m[1], m[3], units)
}
