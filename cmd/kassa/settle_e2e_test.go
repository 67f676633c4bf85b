package main

import (
	"context"
	"encoding/json"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/kassapay/kassa/devchain"
	"github.com/kassapay/kassa/store"
	"github.com/kassapay/kassa/store/storetest"
)

// settlementOf reads an invoice's latest receipt's settlement status and
// transaction with the merchant key.
func settlementOf(t *testing.T, k *instance, id string) (string, string) {
	t.Helper()
	var out struct {
		LatestPayment *struct {
			SettlementStatus string  `json:"settlement_status"`
			SettlementTxHash *string `json:"settlement_tx_hash"`
		} `json:"latest_payment"`
	}
	wantStatus(t, call(t, "GET", k.url+"/api/v1/invoices/"+id+"?expand[]=latest_payment",
		map[string]string{"x-api-key": k.merchantKey}, nil, &out), 200)
	if out.LatestPayment == nil {
		return "", ""
	}
	hash := ""
	if out.LatestPayment.SettlementTxHash != nil {
		hash = *out.LatestPayment.SettlementTxHash
	}
	return out.LatestPayment.SettlementStatus, hash
}

// usdtBalance is addr's USDT on the dev chain at url.
func usdtBalance(t *testing.T, url, addr string) *big.Int {
	t.Helper()
	c, err := rpc.Dial(url)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	data := append([]byte{0x70, 0xa0, 0x82, 0x31}, common.LeftPadBytes(common.HexToAddress(addr).Bytes(), 32)...)
	var out hexutil.Bytes
	if err := c.Call(&out, "eth_call", map[string]any{"to": devchain.USDTAddress, "data": hexutil.Bytes(data)}, "latest"); err != nil {
		t.Fatal(err)
	}
	return new(big.Int).SetBytes(out)
}

// TestSettleOnDevChainEndToEnd: serve --dev, kassa pay: the payment reaches the
// demo merchant's settlement address as a real transfer anyone can check on the
// dev chain, and the receipt is settled with its hash. Then three more payments
// while Kassa is killed with SIGKILL again and again: each is settled once, and
// the merchant's balance is exactly what was paid.
func TestSettleOnDevChainEndToEnd(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		cfg.DataDir = t.TempDir()
		k := startKassa(t, cfg)
		payURL, id := pageInvoice(t, k, map[string]any{"amount_usd": 12.5})
		kassaPay(t, k, payURL)
		waitSettled(t, k, id)
		_, hash := settlementOf(t, k, id)
		if !strings.HasPrefix(hash, "0x") || len(hash) != 66 {
			t.Fatalf("settlement_tx_hash %q", hash)
		}
		want := big.NewInt(12_500_000)
		if got := usdtBalance(t, k.chainURL, devSettlementAddress); got.Cmp(want) != 0 {
			t.Fatalf("merchant's USDT %s, want %s", got, want)
		}
		// The payor sees what settling costs the operator in gas on the dev chain.
		var tokens []struct {
			Network string      `json:"network"`
			Symbol  string      `json:"token_symbol"`
			Cost    json.Number `json:"settlement_cost_usd"`
		}
		availableTokens(t, payURL, &tokens)
		for _, tok := range tokens {
			if tok.Network == "devchain" {
				if c, ok := new(big.Rat).SetString(tok.Cost.String()); !ok || c.Sign() <= 0 || c.Cmp(big.NewRat(1, 1)) > 0 {
					t.Errorf("%s on devchain: settlement_cost_usd %s", tok.Symbol, tok.Cost)
				}
			}
		}

		var ids []string
		for _, usd := range []float64{1.25, 2, 3.75} {
			payURL, id := pageInvoice(t, k, map[string]any{"amount_usd": usd})
			kassaPay(t, k, payURL)
			ids = append(ids, id)
		}
		want.Add(want, big.NewInt(7_000_000))
		for round := 0; ; round++ {
			time.Sleep(time.Duration(300+round*250%900) * time.Millisecond)
			if err := k.cmd.Process.Kill(); err != nil {
				t.Fatal(err)
			}
			<-k.exited
			k = startKassa(t, cfg)
			done := true
			for _, id := range ids {
				if s, _ := settlementOf(t, k, id); s != "settled" {
					done = false
				}
			}
			if done || round == 12 {
				t.Logf("SIGKILL %d times before every receipt was settled", round+1)
				break
			}
		}
		for _, id := range ids {
			waitSettled(t, k, id)
		}
		if got := usdtBalance(t, k.chainURL, devSettlementAddress); got.Cmp(want) != 0 {
			t.Fatalf("merchant's USDT %s after the kills, want %s", got, want)
		}
	})
}

// waitSettled waits until the invoice's receipt is settled.
func waitSettled(t *testing.T, k *instance, id string) {
	t.Helper()
	for end := time.Now().Add(90 * time.Second); time.Now().Before(end); time.Sleep(200 * time.Millisecond) {
		if s, _ := settlementOf(t, k, id); s == "settled" {
			return
		}
	}
	s, _ := settlementOf(t, k, id)
	t.Fatalf("invoice %s: settlement %q after 90 s", id, s)
}

// availableTokens reads the available tokens of the invoice behind payURL into out.
func availableTokens(t *testing.T, payURL string, out any) {
	t.Helper()
	s, err := openSession(payURL)
	if err != nil {
		t.Fatal(err)
	}
	r, err := s.api.ListAvailableTokensWithResponse(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if err := notOK(r.StatusCode(), r.Body); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(r.Body, out); err != nil {
		t.Fatal(err)
	}
}
