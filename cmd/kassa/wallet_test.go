package main

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/hdwallet"
	"github.com/kassapay/kassa/store"
)

// TestWalletCommand: `kassa wallet --dev` beside a running serve --dev shows the
// gas wallet the banner names, funded, with its balances read from the dev chain,
// the address of every other network without balances, and no key.
func TestWalletCommand(t *testing.T) {
	dir := t.TempDir()
	k := startKassa(t, store.Config{DataDir: dir})
	gas, _, _ := strings.Cut(k.gasWallet, " ")
	if !strings.HasPrefix(gas, "0x") {
		t.Fatalf("banner gas wallet %q", k.gasWallet)
	}
	chainAddr := strings.TrimPrefix(k.chainURL, "http://")
	text := string(runKassa(t, "wallet", "--dev", "--devchain-addr", chainAddr, "--data-dir", dir))
	for _, want := range []string{"devnet / devchain: " + gas, "  balance: 1000 ETH, 100000 USDC, 100000 USDT",
		"waiting payouts: 0", "mainnet / ethereum: 0x", "no RPC endpoint configured"} {
		if !strings.Contains(text, want) {
			t.Errorf("kassa wallet printed\n%s\nwant %q in it", text, want)
		}
	}
	if strings.Contains(text, "WARNING") {
		t.Errorf("a funded wallet warned:\n%s", text)
	}

	var out struct {
		Wallets []gasWallet `json:"gas_wallets"`
	}
	raw := runKassa(t, "wallet", "--dev", "--devchain-addr", chainAddr, "--data-dir", dir, "--json")
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatalf("--json: %v\n%s", err, raw)
	}
	networks := map[string]gasWallet{}
	for _, g := range out.Wallets {
		networks[g.Network] = g
	}
	dev := networks["devchain"]
	if dev.Address != gas || dev.Balance != "1000" || dev.Tokens["USDT"] != "100000" || dev.Short || dev.Error != "" {
		t.Errorf("devchain %+v", dev)
	}
	if eth := networks["ethereum"]; !strings.HasPrefix(eth.Address, "0x") || eth.Address == gas || eth.Balance != "" || eth.Error == "" {
		t.Errorf("ethereum %+v", eth)
	}
	for _, env := range []string{"devnet", "mainnet"} {
		key, err := os.ReadFile(hdwallet.KeyPath(dir, kassa.Environment(env)))
		if err != nil {
			t.Fatal(err)
		}
		secret := strings.TrimSpace(string(key))
		if bytes.Contains(raw, []byte(secret)) || strings.Contains(text, secret) || strings.Contains(text+string(raw), "xprv") {
			t.Fatalf("kassa wallet printed a master key")
		}
	}
}

func TestWalletWithoutKeys(t *testing.T) {
	out := runKassaFails(t, "wallet", "--data-dir", t.TempDir())
	if !strings.Contains(out, "no devnet master key") {
		t.Fatalf("kassa wallet on an empty data dir said %q", out)
	}
}

func TestPrintWalletsWarnsLast(t *testing.T) {
	var b bytes.Buffer
	printWallets(&b, []gasWallet{
		{Environment: "devnet", Network: "devchain", Address: "0xAA", Native: "ETH", Balance: "0", Need: "0.0004",
			Tokens: map[string]string{"USDT": "5", "USDC": "0"}, Waiting: 2, Short: true, Warning: "gas wallet 0xAA on devchain is short"},
		{Environment: "mainnet", Network: "ethereum", Address: "0xBB", Native: "ETH", Error: "no RPC endpoint configured: balances unknown"},
	})
	want := `Gas wallets: they pay the gas of sweeps and refunds; fund each with its network's coin.

devnet / devchain: 0xAA
  balance: 0 ETH, 0 USDC, 5 USDT
  waiting payouts: 2, needing up to 0.0004 ETH
  refunds waiting: none

mainnet / ethereum: 0xBB
  no RPC endpoint configured: balances unknown

WARNING: gas wallet 0xAA on devchain is short
`
	if b.String() != want {
		t.Fatalf("printed\n%s\nwant\n%s", b.String(), want)
	}
}
