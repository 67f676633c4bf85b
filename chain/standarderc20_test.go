package chain_test

import (
	"context"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/chain"
	"github.com/kassapay/kassa/devchain/oztoken"
	"github.com/kassapay/kassa/registry"
	"github.com/kassapay/kassa/store"
	"github.com/kassapay/kassa/store/storetest"
)

// ozt is the id of OpenZeppelin's ERC-20 in withStandardERC20's registry.
const ozt int64 = 901

// withStandardERC20 is a fixture on a dev chain where OpenZeppelin's ERC-20
// ("OZT", 18 decimals, a stablecoin to the rate source) is deployed by dev
// account 8 with its whole supply at dev account 7, and listed on devchain as
// token ozt. Nobody else holds it: not the gas wallet, unlike the dev chain's
// own tokens.
func withStandardERC20(t *testing.T, cfg store.Config) *payFixture {
	t.Helper()
	f := newFixture(t, cfg)
	d := startDevChain(t, 0)
	supply := new(big.Int).Mul(big.NewInt(1_000_000), big.NewInt(1e18))
	addr, err := oztoken.Deploy(context.Background(), d.URL(), d.keys[8], "OpenZeppelin Token", "OZT", supply, addressOf(d.keys[7]))
	if err != nil {
		t.Fatal(err)
	}
	f.listOZT(t, addr)
	f.w.Nodes = d.pool(t)
	return payOn(t, f, d, true)
}

// listOZT lists OpenZeppelin's ERC-20 deployed at addr on devchain as token ozt
// (a stablecoin to the rate source) and makes f's watcher anew over that registry,
// without nodes.
func (f *fixture) listOZT(t testing.TB, addr string) {
	t.Helper()
	file := registry.File{}
	for _, env := range []kassa.Environment{kassa.Devnet, kassa.Mainnet} {
		file.Networks = append(file.Networks, f.reg.Networks(env)...)
		file.Tokens = append(file.Tokens, f.reg.Tokens(env)...)
	}
	file.Tokens = append(file.Tokens, kassa.Token{ID: ozt, Environment: kassa.Devnet, Network: "devchain", Symbol: "OZT",
		Name: "OpenZeppelin Token", Type: kassa.TokenERC20, Address: addr, Decimals: oztoken.Decimals,
		Stable: true, SettlementRoute: true, Monitored: true})
	var err error
	if f.reg, err = registry.New(file); err != nil {
		t.Fatal(err)
	}
	f.pay.Registry = f.reg
	f.w = f.watcher(nil)
}

// TestSettlementCostOfStandardERC20: the settlement cost of a standard ERC-20
// the gas wallet holds none of (its transfer reverts, so the node will not
// estimate it) is still known and above 0, in gas and in US dollars, and close
// to what its first sweep really costs; a payment in it is found and swept to
// the merchant.
func TestSettlementCostOfStandardERC20(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		p := withStandardERC20(t, cfg)
		costs := &chain.Senders{}
		costs.Add(p.sender)
		p.pay.Costs = costs
		p.step(t)

		r := p.sender.LastGasReport()
		if r == nil {
			t.Fatal("no gas report after a round")
		}
		if held := r.Tokens["OZT"]; held == nil || held.Sign() != 0 {
			t.Fatalf("the gas wallet holds %v OZT, want none", held)
		}
		wei, ok := costs.SweepCost(kassa.Devnet, "devchain", ozt)
		if !ok || wei.Sign() <= 0 {
			t.Fatalf("sweep cost of OZT: %v, %v; want a cost above 0", wei, ok)
		}
		// The coin's cost is two plain transfers (top-up and sweep, 42,000 gas)
		// at the same price: it turns the token's cost back into gas.
		coin, ok := costs.SweepCost(kassa.Devnet, "devchain", eth)
		if !ok || coin.Sign() <= 0 {
			t.Fatalf("sweep cost of ETH: %v, %v", coin, ok)
		}
		estimated := new(big.Int).Quo(new(big.Int).Mul(wei, big.NewInt(42_000)), coin).Uint64()
		tok, _ := p.reg.Token(kassa.Devnet, ozt)
		usd, ok := p.pay.SettlementCost(p.ctx, tok)
		if !ok || usd.Sign() <= 0 {
			t.Fatalf("settlement_cost_usd of OZT: %v, %v; want above 0", usd, ok)
		}

		inv, deposit := p.invoice(t, 10_000, ozt)
		paid := new(big.Int).Mul(big.NewInt(10), big.NewInt(1e18)) // 10 USD at 1 USD per token
		p.d.send(t, 7, tok.Address, deposit, paid)
		p.until(t, 60, "settled", func() bool { return p.settled(t, inv) })
		p.wantBalance(t, ozt, p.merchant, paid)
		p.wantBalance(t, ozt, deposit, new(big.Int))

		_, hashes := p.settlement(t, inv)
		receipt, err := p.d.client.TransactionReceipt(p.ctx, common.HexToHash(hashes[0]))
		if err != nil {
			t.Fatal(err)
		}
		spent := 21_000 + receipt.GasUsed // the top-up is a plain transfer
		if estimated < spent || estimated > spent*3/2 {
			t.Errorf("estimated %d gas to settle a receipt of OZT; its first sweep cost %d (top-up and transfer)", estimated, spent)
		}
		t.Logf("OZT settlement: estimated %d gas (%s USD), the first sweep used %d", estimated, usd.FloatString(6), spent)
	})
}
