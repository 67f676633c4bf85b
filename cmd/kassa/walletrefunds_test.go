package main

import (
	"bytes"
	"context"
	"encoding/json"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/devchain"
)

func TestRefundNeeds(t *testing.T) {
	usdt := func(status kassa.RefundStatus, units int64, usd kassa.Millis) *kassa.Refund {
		return &kassa.Refund{Status: status, TokenID: 3, TokenSymbol: "USDT", Decimals: 6, AmountUnits: big.NewInt(units), AmountUSD: usd}
	}
	eth := &kassa.Refund{Status: kassa.RefundPending, TokenID: 1, TokenSymbol: "ETH", Decimals: 18,
		AmountUnits: big.NewInt(1_000_000_000_000_000), AmountUSD: 2000}
	refunds := []*kassa.Refund{usdt(kassa.RefundPending, 5_000_000, 5000), usdt(kassa.RefundPending, 2_500_000, 2500),
		usdt(kassa.RefundAwaitingAddress, 1_000_000, 1000), eth}
	for _, tc := range []struct {
		name    string
		balance map[string]*big.Int
		want    []string // per token: symbol pending amount usd awaiting covered short_by
	}{
		{"balances unknown", nil, []string{"ETH 1 0.001 2.000 0 0 <nil> ", "USDT 2 7.5 7.500 1 1 <nil> "}},
		{"short", map[string]*big.Int{"USDT": big.NewInt(5_000_000), "ETH": big.NewInt(0)},
			[]string{"ETH 1 0.001 2.000 0 0 false 0.001", "USDT 2 7.5 7.500 1 1 false 2.5"}},
		{"covered exactly", map[string]*big.Int{"USDT": big.NewInt(7_500_000), "ETH": big.NewInt(2_000_000_000_000_000)},
			[]string{"ETH 1 0.001 2.000 0 0 true ", "USDT 2 7.5 7.500 1 1 true "}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := refundNeeds(refunds, tc.balance)
			if len(got) != len(tc.want) {
				t.Fatalf("needs %+v", got)
			}
			for i, n := range got {
				covered := "<nil>"
				if n.Covered != nil {
					covered = map[bool]string{true: "true", false: "false"}[*n.Covered]
				}
				line := strings.Join([]string{n.TokenSymbol, itoa(n.Pending), n.Amount, n.AmountUSD, itoa(n.Awaiting),
					n.AwaitingAmount, covered, n.ShortBy}, " ")
				if line != tc.want[i] {
					t.Errorf("need %d = %q, want %q", i, line, tc.want[i])
				}
			}
		})
	}
}

func itoa(n int) string { return big.NewInt(int64(n)).String() }

// TestPrintRefundsQuotes: the refunds' lines quote the merchant's reason, so a
// reason with a terminal escape or a new line prints as text.
func TestPrintRefundsQuotes(t *testing.T) {
	covered := false
	g := gasWallet{Environment: "devnet", Network: "devchain", Address: "0xAA", Native: "ETH", Balance: "1",
		RefundNeeds: []refundNeed{{TokenSymbol: "USDT", Pending: 1, Amount: "5", AmountUSD: "5.000", Awaiting: 1,
			AwaitingAmount: "2", Balance: "0", Covered: &covered, ShortBy: "5"}},
		Refunds: []waitingRefund{
			{ID: "r1", InvoiceID: "i1", MerchantID: 7, Status: kassa.RefundPending, TokenSymbol: "USDT", Amount: "5", AmountUSD: "5.000",
				Address: "0xBB", Reason: "box\x1b[2Jdamaged\nsorry", FailureReason: "the transfer cannot be estimated"},
			{ID: "r2", InvoiceID: "i1", MerchantID: 7, Status: kassa.RefundAwaitingAddress, TokenSymbol: "USDT", Amount: "2", AmountUSD: "2.000"},
		}}
	var b bytes.Buffer
	printRefunds(&b, g)
	want := `  refunds waiting in USDT: 1 pending, 5 USDT (5.000 USD), short by 5 USDT (it holds 0); 1 awaiting the payor's address, 2 USDT more once claimed
    refund r1: 5 USDT (5.000 USD) to 0xBB, invoice i1, merchant 7, reason "box\x1b[2Jdamaged\nsorry", waiting: "the transfer cannot be estimated"
    refund r2: 2 USDT (2.000 USD) awaiting the payor's address, invoice i1, merchant 7
`
	if b.String() != want {
		t.Fatalf("printed\n%s\nwant\n%s", b.String(), want)
	}
	if w := refundWarning(g); w != "gas wallet 0xAA on devchain (devnet) is short by 5 USDT for 1 pending refunds: they wait until it is funded" {
		t.Fatalf("warning %q", w)
	}
}

// TestWalletWaitingRefunds: serve (the demo merchant, no dev chain of its own)
// watches a dev chain whose gas wallet was never funded. An invoice paid in
// USDT with kassa pay is refunded to an address (it waits: the wallet cannot
// pay, and says why), through a claim link (awaiting the payor's address) and
// once more, canceled. `kassa wallet` lists the first two with the merchant's
// reason and the sender's, their total in USDT and USD, short by 5 USDT, and
// warns; --json says the same. Funded, the wallet pays the refund, and kassa
// wallet shows nothing pending and the claim still to come. SQLite.
func TestWalletWaitingRefunds(t *testing.T) {
	dir := t.TempDir()
	dev, err := devchain.Start(devchain.Config{DataDir: t.TempDir(), Addr: "127.0.0.1:0", BlockTime: 250 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { dev.Close() })
	k := startServe(t, nil, "serve", "--dev", "--devchain=false", "--addr", "127.0.0.1:0", "--data-dir", dir,
		"--rpc", devNetwork+"="+dev.URL())
	k.chainURL = dev.URL()
	const payor = "0x00000000000000000000000000000000000b0b04"
	payURL, id := pageInvoice(t, k, map[string]any{"amount_usd": 12.5})
	kassaPay(t, k, payURL)
	waitUntil(t, 90*time.Second, func() string {
		var inv struct{ Status string }
		wantStatus(t, call(t, "GET", k.url+"/api/v1/invoices/"+id, map[string]string{"x-api-key": k.merchantKey}, nil, &inv), 200)
		if inv.Status != "paid" {
			return "the invoice is " + inv.Status
		}
		return ""
	})
	ref := createRefund(t, k, id, map[string]any{"amount_usd": 5, "address": payor, "reason": "one item returned"})
	claim := createRefund(t, k, id, map[string]any{"amount_usd": 2, "reason": "ask the payor"})
	canceled := createRefund(t, k, id, map[string]any{"amount_usd": 1, "address": payor, "reason": "changed my mind"})
	wantStatus(t, call(t, "POST", k.url+"/api/v1/refunds/"+canceled["id"].(string)+"/cancel",
		map[string]string{"x-api-key": k.merchantKey}, nil, nil), 200)
	var waits string
	waitUntil(t, 60*time.Second, func() string {
		var r struct {
			Status        string
			FailureReason *string `json:"failure_reason"`
		}
		wantStatus(t, call(t, "GET", k.url+"/api/v1/refunds/"+ref["id"].(string), map[string]string{"x-api-key": k.merchantKey}, nil, &r), 200)
		if r.Status != "pending" || r.FailureReason == nil {
			return "the refund is " + r.Status + " without a reason yet"
		}
		waits = *r.FailureReason
		return ""
	})

	args := []string{"wallet", "--rpc", devNetwork + "=" + dev.URL(), "--data-dir", dir}
	text := string(runKassa(t, args...))
	quoted, _ := json.Marshal(waits) // Go's quoting of plain text is JSON's
	for _, want := range []string{
		"  balance: 0 ETH, 0 USDC, 0 USDT",
		"  refunds waiting in USDT: 1 pending, 5 USDT (5.000 USD), short by 5 USDT (it holds 0); 1 awaiting the payor's address, 2 USDT more once claimed",
		"    refund " + ref["id"].(string) + ": 5 USDT (5.000 USD) to " + ref["address"].(string) + ", invoice " + id,
		`, reason "one item returned", waiting: ` + string(quoted),
		"    refund " + claim["id"].(string) + ": 2 USDT (2.000 USD) awaiting the payor's address, invoice " + id,
		"is short by 5 USDT for 1 pending refunds",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("kassa wallet printed\n%s\nwant %q in it", text, want)
		}
	}
	if strings.Contains(text, canceled["id"].(string)) {
		t.Errorf("kassa wallet lists the canceled refund:\n%s", text)
	}
	if i := strings.Index(text, "WARNING: "); i < 0 || !strings.Contains(text[i:], "short by 5 USDT") {
		t.Errorf("no warning for the refunds:\n%s", text)
	}

	var out struct {
		Wallets []gasWallet `json:"gas_wallets"`
	}
	raw := runKassa(t, append(args, "--json")...)
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatalf("--json: %v\n%s", err, raw)
	}
	var g gasWallet
	for _, w := range out.Wallets {
		if w.Environment == kassa.Devnet && w.Network == devNetwork {
			g = w
		}
	}
	if len(g.RefundNeeds) != 1 || len(g.Refunds) != 2 || !g.Short {
		t.Fatalf("devchain %+v", g)
	}
	n := g.RefundNeeds[0]
	if n.TokenSymbol != "USDT" || n.Pending != 1 || n.AmountUnits != "5000000" || n.AmountUSD != "5.000" || n.Awaiting != 1 ||
		n.Covered == nil || *n.Covered || n.ShortBy != "5" || n.Balance != "0" {
		t.Fatalf("refund need %+v", n)
	}
	if r := g.Refunds[0]; r.ID != ref["id"] || r.Reason != "one item returned" || r.FailureReason != waits || r.Address != ref["address"] {
		t.Fatalf("waiting refund %+v", r)
	}

	// Funded, the wallet pays the refund; the claim is still to come.
	if _, err := dev.Fund(context.Background(), g.Address); err != nil {
		t.Fatal(err)
	}
	waitRefund(t, k, ref["id"].(string))
	text = string(runKassa(t, args...))
	if want := "  refunds waiting in USDT: 0 pending, 0 USDT (0.000 USD), covered (it holds 99995 USDT); 1 awaiting the payor's address"; !strings.Contains(text, want) ||
		strings.Contains(text, ref["id"].(string)) || strings.Contains(text, "short by") {
		t.Errorf("after funding kassa wallet printed\n%s\nwant %q in it", text, want)
	}
	stopGracefully(t, k)
}
