package main

import (
	"context"
	"encoding/json"
	"math/big"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/kassapay/kassa/devchain"
	"github.com/kassapay/kassa/devchain/oztoken"
	"github.com/kassapay/kassa/store"
)

// TestStandardERC20EndToEnd: serve --dev with OpenZeppelin's ERC-20 ("OZT", a
// token nobody here wrote) deployed on the dev chain and listed in the registry
// file. The gas wallet holds none of it, yet the payment page's available
// tokens show a settlement cost above 0 for it; kassa pay pays an invoice in it,
// and the payment reaches the demo merchant's settlement address.
func TestStandardERC20EndToEnd(t *testing.T) {
	dir := t.TempDir()
	// Deploy before serve starts, on the chain serve then continues, so its first
	// gas report already sees the contract.
	chain, err := devchain.Start(devchain.Config{DataDir: filepath.Join(dir, "devchain"), Addr: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	deployer, err := crypto.HexToECDSA(devchain.Accounts()[8].PrivateKey)
	if err != nil {
		t.Fatal(err)
	}
	payor := devchain.Accounts()[0].Address // kassa pay's default key
	supply := new(big.Int).Mul(big.NewInt(1_000_000), big.NewInt(1e18))
	ozt, err := oztoken.Deploy(context.Background(), chain.URL(), deployer, "OpenZeppelin Token", "OZT", supply, payor)
	if err != nil {
		t.Fatal(err)
	}
	if err := chain.Close(); err != nil {
		t.Fatal(err)
	}
	reg := registryWith(t, map[string]any{"id": 901, "environment": "devnet", "network": "devchain", "symbol": "OZT",
		"name": "OpenZeppelin Token", "type": "erc20", "address": ozt, "decimals": oztoken.Decimals,
		"stable": true, "settlement_route": true, "monitored": true})
	k := startKassa(t, store.Config{DataDir: dir}, "--registry-file", reg)
	if held := erc20Balance(t, k.chainURL, ozt, k.gasWallet); held.Sign() != 0 {
		t.Fatalf("the gas wallet holds %s OZT, want none", held)
	}

	payURL, id := pageInvoice(t, k, map[string]any{"amount_usd": 3})
	var cost *big.Rat
	for end := time.Now().Add(30 * time.Second); ; time.Sleep(250 * time.Millisecond) {
		var tokens []struct {
			Symbol string      `json:"token_symbol"`
			Cost   json.Number `json:"settlement_cost_usd"`
		}
		availableTokens(t, payURL, &tokens)
		for _, tok := range tokens {
			if tok.Symbol == "OZT" {
				cost, _ = new(big.Rat).SetString(tok.Cost.String())
			}
		}
		if cost != nil && cost.Sign() > 0 {
			break
		}
		if time.Now().After(end) {
			t.Fatalf("OZT's settlement_cost_usd is still %v", cost)
		}
	}
	if cost.Cmp(big.NewRat(1, 1)) > 0 {
		t.Errorf("OZT's settlement_cost_usd %s: more than a dollar of dev chain gas", cost.FloatString(6))
	}

	kassaPay(t, k, payURL, "--token", "OZT")
	waitSettled(t, k, id)
	want := new(big.Int).Mul(big.NewInt(3), big.NewInt(1e18))
	if got := erc20Balance(t, k.chainURL, ozt, devSettlementAddress); got.Cmp(want) != 0 {
		t.Fatalf("merchant's OZT %s, want %s", got, want)
	}
}

// registryWith writes the built-in registry plus the tokens extra and returns
// the file.
func registryWith(t *testing.T, extra ...map[string]any) string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "..", "registry", "registry.json"))
	if err != nil {
		t.Fatal(err)
	}
	var reg struct {
		Networks []map[string]any `json:"networks"`
		Tokens   []map[string]any `json:"tokens"`
	}
	if err := json.Unmarshal(raw, &reg); err != nil {
		t.Fatal(err)
	}
	reg.Tokens = append(reg.Tokens, extra...)
	path := filepath.Join(t.TempDir(), "registry.json")
	out, _ := json.Marshal(reg)
	if err := os.WriteFile(path, out, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// erc20Balance is addr's balance of the ERC-20 token on the chain at url.
func erc20Balance(t *testing.T, url, token, addr string) *big.Int {
	t.Helper()
	c, err := rpc.Dial(url)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	data := append([]byte{0x70, 0xa0, 0x82, 0x31}, common.LeftPadBytes(common.HexToAddress(addr).Bytes(), 32)...)
	var out hexutil.Bytes
	if err := c.Call(&out, "eth_call", map[string]any{"to": token, "data": hexutil.Bytes(data)}, "latest"); err != nil {
		t.Fatal(err)
	}
	return new(big.Int).SetBytes(out)
}
