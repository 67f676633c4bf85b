package main

import (
	"context"
	"encoding/json"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/client"
	"github.com/kassapay/kassa/devchain"
	"github.com/kassapay/kassa/store"
)

// localMainnet is a mainnet network of the test's registry served by the dev
// chain: the mainnet executor on a chain the test controls.
const localMainnet = "localnet"

// mainnetRegistry writes the built-in registry plus localMainnet (chain id 1337,
// its USDT the dev chain's) and returns the file.
func mainnetRegistry(t *testing.T) string {
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
	reg.Networks = append(reg.Networks, map[string]any{"name": localMainnet, "display_name": "Local mainnet",
		"environment": "mainnet", "chain_id": devchain.ChainID, "confirmations": 3, "explorer_url": "",
		"native_symbol": "ETH", "derivation_index": 9, "block_time_ms": 1000})
	for _, tok := range devchain.Tokens() {
		if tok.Symbol == "USDT" {
			reg.Tokens = append(reg.Tokens, map[string]any{"id": 900, "environment": "mainnet", "network": localMainnet,
				"symbol": "USDT", "name": "Tether USD (local)", "type": "erc20", "address": tok.Address, "decimals": tok.Decimals,
				"icon_uri": "/static/tokens/usdt.svg", "stable": true, "settlement_route": true, "monitored": true})
		}
	}
	path := filepath.Join(t.TempDir(), "registry.json")
	out, _ := json.Marshal(reg)
	if err := os.WriteFile(path, out, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// freeAddr returns a loopback address nobody listens on now.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// TestSettleOnMainnetNetwork: the settlement executor runs for a mainnet network
// as soon as it has an RPC (here a mainnet network of the registry served by the
// dev chain). Its gas wallet comes from the mainnet master key, is not funded by
// the dev chain (kassa wallet says it is short once a sweep waits), and the sweep
// goes through once the operator funds it: the merchant's mainnet address holds
// exactly what was paid.
func TestSettleOnMainnetNetwork(t *testing.T) {
	dir, reg, chainAddr := t.TempDir(), mainnetRegistry(t), freeAddr(t)
	chainURL := "http://" + chainAddr
	runKassa(t, "merchant", "create", "--name", "Main", "--email", "main@shop.test", "--password", "correct horse",
		"--mainnet", "--data-dir", dir)
	k := startKassa(t, store.Config{DataDir: dir}, "--registry-file", reg, "--devchain-addr", chainAddr,
		"--rpc", localMainnet+"="+chainURL)

	var login struct{ Token string }
	wantStatus(t, call(t, "POST", k.url+"/api/v1/auth/login", nil,
		map[string]string{"email": "main@shop.test", "password": "correct horse"}, &login), 200)
	jwt := map[string]string{"Authorization": "Bearer " + login.Token}
	const merchantAddr = "0x00000000000000000000000000000000000C0FFE"
	wantStatus(t, call(t, "PATCH", k.url+"/api/v1/merchant", jwt, map[string]any{"settlement": map[string]any{
		"mainnet": map[string]string{"network": localMainnet, "token_symbol": "USDT", "address": merchantAddr}},
		"current_password": "correct horse"}, nil), 200)
	var key struct {
		APIKey string `json:"api_key"`
	}
	wantStatus(t, call(t, "POST", k.url+"/api/v1/api-keys", jwt,
		map[string]any{"name": "live", "scope": "merchant", "environment": "mainnet"}, &key), 201)
	auth := map[string]string{"x-api-key": key.APIKey, "Idempotency-Key": kassa.NewUUID()}
	var inv struct {
		ID         string `json:"invoice_id"`
		PaymentURL string `json:"payment_url"`
	}
	wantStatus(t, call(t, "POST", k.url+"/api/v1/invoices", auth, map[string]any{"amount_usd": 7.5}, &inv), 201)
	kassaPay(t, k, inv.PaymentURL, "--network", localMainnet)

	wallet := func() gasWallet {
		t.Helper()
		var out struct {
			Wallets []gasWallet `json:"gas_wallets"`
		}
		raw := runKassa(t, "wallet", "--json", "--data-dir", dir, "--registry-file", reg, "--rpc", localMainnet+"="+chainURL)
		if err := json.Unmarshal(raw, &out); err != nil {
			t.Fatal(err)
		}
		for _, g := range out.Wallets {
			if g.Network == localMainnet {
				return g
			}
		}
		t.Fatalf("no %s gas wallet in %s", localMainnet, raw)
		return gasWallet{}
	}
	settlement := func() string {
		var out struct {
			LatestPayment *struct {
				SettlementStatus string `json:"settlement_status"`
			} `json:"latest_payment"`
		}
		wantStatus(t, call(t, "GET", k.url+"/api/v1/invoices/"+inv.ID+"?expand[]=latest_payment",
			map[string]string{"x-api-key": key.APIKey}, nil, &out), 200)
		if out.LatestPayment == nil {
			return ""
		}
		return out.LatestPayment.SettlementStatus
	}
	var g gasWallet
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(time.Second) {
		if g = wallet(); g.Waiting == 1 && g.Short {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the mainnet gas wallet never showed the waiting sweep: %+v (settlement %q)", g, settlement())
		}
	}
	if g.Address == k.gasWallet || g.Balance != "0" || g.Environment != kassa.Mainnet || !strings.Contains(g.Warning, "the 1 waiting payouts") {
		t.Fatalf("mainnet gas wallet %+v; the devnet one is %s", g, k.gasWallet)
	}
	if s := settlement(); s != "processing" {
		t.Fatalf("settlement %q while the gas wallet is dry, want processing", s)
	}

	// The operator funds it from a wallet of their own (dev account 1 here).
	ten := new(big.Int).Mul(big.NewInt(10), big.NewInt(1e18))
	if _, err := sendTransfer(context.Background(), chainURL, devchain.Accounts()[1].PrivateKey,
		&client.Quote{Address: g.Address, ChainId: devchain.ChainID, Network: localMainnet}, ten); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(90 * time.Second); settlement() != "settled"; time.Sleep(time.Second) {
		if time.Now().After(deadline) {
			t.Fatalf("settlement %q 90 s after funding the gas wallet", settlement())
		}
	}
	if got := usdtBalance(t, chainURL, merchantAddr); got.Cmp(big.NewInt(7_500_000)) != 0 {
		t.Fatalf("the merchant's mainnet address holds %s USDT units, want 7500000", got)
	}
	if g := wallet(); g.Short || g.Waiting != 0 {
		t.Errorf("after the sweep: %+v", g)
	}
}
