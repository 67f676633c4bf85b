package main

import (
	"context"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/ethereum/go-ethereum/rpc"
	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/kassapay/kassa/store"
	"github.com/kassapay/kassa/store/storetest"
)

// kassaPay runs the built binary's "kassa pay" and returns what it printed.
func kassaPay(t *testing.T, k *instance, payURL string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, kassaBin, append([]string{"pay", payURL, "--rpc", k.chainURL}, args...)...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("kassa pay %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// blockNumber asks the dev chain for its head.
func blockNumber(t *testing.T, url string) uint64 {
	t.Helper()
	c, err := rpc.Dial(url)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var n string
	if err := c.Call(&n, "eth_blockNumber"); err != nil {
		t.Fatal(err)
	}
	var v uint64
	for _, d := range strings.TrimPrefix(n, "0x") {
		v = v*16 + uint64(strings.IndexRune("0123456789abcdef", d))
	}
	return v
}

// invoiceStatus reads an invoice's status with the merchant key.
func invoiceStatus(t *testing.T, k *instance, id string) string {
	t.Helper()
	var out struct{ Status string }
	wantStatus(t, call(t, "GET", k.url+"/api/v1/invoices/"+id+"/status", map[string]string{"x-api-key": k.merchantKey}, nil, &out), 200)
	return out.Status
}

// TestPayOnDevChainEndToEnd: serve --dev with its dev chain, kassa pay on a fresh
// invoice's payment URL: a real signed transfer is detected, confirmed and paid,
// and a signed invoice.paid webhook arrives. Then kill -9: the dev chain's blocks
// and the invoice survive, and a second payment after the restart is seen too.
func TestPayOnDevChainEndToEnd(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		cfg.DataDir = t.TempDir()
		k := startKassa(t, cfg)
		if k.chainURL == "" {
			t.Fatal("the --dev banner has no dev chain line")
		}
		rcv := newReceiver(t)
		var ep struct{ ID, Secret string }
		wantStatus(t, call(t, "POST", k.url+"/api/v1/webhook-endpoints", map[string]string{"x-api-key": k.merchantKey},
			map[string]any{"url": rcv.srv.URL + "/hooks", "enabled_events": []string{"invoice.paid"}}, &ep), 201)
		wh, err := standardwebhooks.NewWebhook(ep.Secret)
		if err != nil {
			t.Fatal(err)
		}
		rcv.mu.Lock()
		rcv.wh = wh
		rcv.mu.Unlock()

		payURL, id := pageInvoice(t, k, map[string]any{"amount_usd": 12.5})
		out := kassaPay(t, k, payURL)
		for _, want := range []string{"sent transaction 0x", "payment pending (", "invoice paid"} {
			if !strings.Contains(out, want) {
				t.Errorf("kassa pay printed no %q:\n%s", want, out)
			}
		}
		if s := invoiceStatus(t, k, id); s != "paid" {
			t.Fatalf("invoice %s after kassa pay", s)
		}
		// verify looks the transaction up on chain.
		_, rest, _ := strings.Cut(out, "sent transaction ")
		hash, _, _ := strings.Cut(rest, "\n")
		var v struct {
			Checked       bool `json:"checked"`
			PaymentStatus struct {
				Status   string `json:"status"`
				Payments []struct {
					TxHash string `json:"tx_hash"`
				} `json:"payments"`
			} `json:"payment_status"`
		}
		auth := map[string]string{"x-api-key": k.merchantKey}
		wantStatus(t, call(t, "POST", k.url+"/api/v1/invoice/"+id+"/verify", auth,
			map[string]any{"tx_hash": hash, "network": "devchain"}, &v), 200)
		if !v.Checked || v.PaymentStatus.Status != "paid" || len(v.PaymentStatus.Payments) != 1 ||
			!strings.EqualFold(v.PaymentStatus.Payments[0].TxHash, hash) {
			t.Errorf("verify of %s: %+v", hash, v)
		}
		// The dev chain is watched: simulated payments on it are refused.
		_, otherID := pageInvoice(t, k, map[string]any{"amount_usd": 1})
		var refused struct {
			Error struct{ Code, Param string } `json:"error"`
		}
		wantStatus(t, call(t, "POST", k.url+"/api/v1/devnet/invoices/"+otherID+"/payments", auth,
			map[string]any{"token_id": 7}, &refused), 400)
		if refused.Error.Code != "network_watched" {
			t.Errorf("devnet payment on the dev chain: %+v", refused)
		}
		rcv.waitFor("a signed invoice.paid webhook", func() bool {
			for id, typ := range rcv.types {
				if typ == "invoice.paid" && rcv.acked[id] {
					return true
				}
			}
			return false
		})

		// kill -9: nothing is lost, on the chain or in Kassa.
		head := blockNumber(t, k.chainURL)
		if err := k.cmd.Process.Kill(); err != nil {
			t.Fatal(err)
		}
		<-k.exited
		k2 := startKassa(t, cfg)
		if got := blockNumber(t, k2.chainURL); got < head {
			t.Fatalf("the dev chain restarted at block %d, below %d: blocks were lost", got, head)
		}
		if s := invoiceStatus(t, k2, id); s != "paid" {
			t.Fatalf("invoice %s after the restart", s)
		}
		payURL, id = pageInvoice(t, k2, map[string]any{"amount_usd": 3})
		out = kassaPay(t, k2, payURL, "--token", "ETH")
		if s := invoiceStatus(t, k2, id); s != "paid" || !strings.Contains(out, "invoice paid") {
			t.Fatalf("ETH payment after the restart: invoice %s\n%s", s, out)
		}

		// A partial payment ends once its transfer is confirmed (issue 37,
		// finding 6); another token is then refused with the reason: the lock.
		payURL, id = pageInvoice(t, k2, map[string]any{"amount_usd": 3})
		out = kassaPay(t, k2, payURL, "--amount", "1")
		if s := invoiceStatus(t, k2, id); s != "underpaid" || !strings.Contains(out, "the invoice still wants $2.00") {
			t.Fatalf("partial payment: invoice %s\n%s", s, out)
		}
		other, err := exec.Command(kassaBin, "pay", payURL, "--rpc", k2.chainURL, "--token", "USDC").CombinedOutput()
		if err == nil || !strings.Contains(string(other), "locked to USDT on devchain") {
			t.Fatalf("USDC on a USDT-locked invoice: %v\n%s", err, other)
		}
	})
}

// TestChainPaymentInBrowser: the payment page follows a real transfer on the dev
// chain: chosen on the page, sent by kassa pay, detected with its confirmations
// counting, then paid, live.
func TestChainPaymentInBrowser(t *testing.T) {
	ctx := browser(t)
	k := startKassa(t, storetest.SQLiteConfig(t), "--devchain-block-time", "2s") // time to see the confirmations count
	payURL, _ := pageInvoice(t, k, map[string]any{"amount_usd": 12.5, "description": "Espresso beans, 1 kg",
		"invoice_title": "Northwind Goods"})
	do(t, ctx, "open the page", chromedp.Navigate(payURL), chromedp.WaitVisible(css("#tokens")))
	do(t, ctx, "choose USDT on the dev chain", chromedp.Click(css("#tokens input[value='7']")),
		chromedp.Click(css("#tokens button[type=submit]")), chromedp.WaitVisible(css("#address")))
	paid := make(chan string, 1)
	go func() {
		out, _ := exec.Command(kassaBin, "pay", payURL, "--rpc", k.chainURL).CombinedOutput()
		paid <- string(out)
	}()
	until(t, ctx, "the transfer detected, confirmations counting",
		`/^Payment detected: [12]\/3 confirmations/.test(document.getElementById("status-text").textContent)`)
	shot(t, ctx, "12-chain-detected")
	waitText(t, ctx, "#status-text", "Paid")
	shot(t, ctx, "13-chain-paid")
	if out := <-paid; !strings.Contains(out, "invoice paid") {
		t.Fatalf("kassa pay:\n%s", out)
	}
}
