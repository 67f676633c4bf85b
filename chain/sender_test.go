package chain_test

import (
	"context"
	"crypto/ecdsa"
	"log/slog"
	"math/big"
	"os"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/crypto"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/chain"
	"github.com/kassapay/kassa/settlement"
	"github.com/kassapay/kassa/store"
	"github.com/kassapay/kassa/store/storetest"
)

// payFixture settles on the dev chain: the watcher fixture, a chain.Sender of
// the devchain network with the fixture's wallet, and the settlement worker that
// queues sweeps. The merchant settles USDT… on devchain to merchantAddr.
type payFixture struct {
	*fixture
	d        *devChain
	sender   *chain.Sender
	settler  *settlement.Worker
	keys     kassa.KeyRing
	merchant string
	gas      string
}

func onPayChain(t testing.TB, cfg store.Config, fund bool) *payFixture {
	t.Helper()
	f, d := onDevChain(t, cfg)
	return payOn(t, f, d, fund)
}

// payOn is onPayChain over the fixture f watching d.
func payOn(t testing.TB, f *fixture, d *devChain, fund bool) *payFixture {
	t.Helper()
	p := &payFixture{fixture: f, d: d, merchant: newAddress(t)}
	p.keys = f.pay.Wallets[kassa.Devnet].(kassa.KeyRing)
	target := &kassa.Settlement{Network: "devchain", TokenSymbol: "USDT", Address: p.merchant}
	if _, err := f.db.UpdateMerchant(f.ctx, f.m.ID, kassa.MerchantUpdate{
		Settlement: map[kassa.Environment]*kassa.Settlement{kassa.Devnet: target}}); err != nil {
		t.Fatal(err)
	}
	p.sender = p.newSender(t, d.pool(t))
	gas, err := p.sender.GasAddress()
	if err != nil {
		t.Fatal(err)
	}
	p.gas = gas
	p.w.Own = []string{gas}
	if fund {
		p.fund(t)
	}
	p.settler = &settlement.Worker{Store: f.db, Registry: f.reg, Payouts: f.db,
		OnChain: func(_ kassa.Environment, n string) bool { return n == "devchain" }, Log: testLog(t)}
	return p
}

// newSender is a new sender of devchain over pool, as a restarted instance makes.
func (p *payFixture) newSender(t testing.TB, pool *chain.Pool) *chain.Sender {
	t.Helper()
	w := p.watcher(nil)
	return &chain.Sender{Network: w.Network, Tokens: w.Tokens, Chain: pool.Node(), Account: pool.Account(),
		Store: p.db, Keys: p.keys, Leaser: p.db, Holder: "test", Log: testLog(t)}
}

func (p *payFixture) fund(t testing.TB) {
	t.Helper()
	if _, err := p.d.Fund(p.ctx, p.gas); err != nil {
		t.Fatal(err)
	}
}

// step is one round of everything: a block, the watcher, the settlement worker
// and the sender.
func (p *payFixture) step(t testing.TB) {
	t.Helper()
	if err := p.d.Mine(); err != nil {
		t.Fatal(err)
	}
	p.sync(t)
	if _, err := p.settler.RunOnce(p.ctx); err != nil {
		t.Fatal(err)
	}
	if err := p.sender.Round(p.ctx); err != nil {
		t.Fatalf("sender round: %v", err)
	}
}

// until steps until done reports true, at most max steps.
func (p *payFixture) until(t testing.TB, max int, what string, done func() bool) {
	t.Helper()
	for range max {
		p.step(t)
		if done() {
			return
		}
	}
	t.Fatalf("%s: not after %d blocks", what, max)
}

// settled reports whether every receipt of invs is settled.
func (p *payFixture) settled(t testing.TB, invs ...*kassa.Invoice) bool {
	t.Helper()
	for _, inv := range invs {
		_, rs := p.state(t, inv)
		if len(rs) == 0 {
			return false
		}
		for _, r := range rs {
			if r.Settlement != kassa.SettlementSettled {
				return false
			}
		}
	}
	return true
}

// settlement returns inv's receipts' settlement statuses and transaction hashes.
func (p *payFixture) settlement(t testing.TB, inv *kassa.Invoice) ([]kassa.SettlementStatus, []string) {
	t.Helper()
	_, rs := p.state(t, inv)
	var st []kassa.SettlementStatus
	var hashes []string
	for _, r := range rs {
		st = append(st, r.Settlement)
		h := ""
		if r.SettlementTxHash != nil {
			h = *r.SettlementTxHash
		}
		hashes = append(hashes, h)
	}
	return st, hashes
}

// balance is addr's balance of token (0: ETH) on the dev chain.
func (p *payFixture) balance(t testing.TB, token int64, addr string) *big.Int {
	t.Helper()
	acct := p.d.pool(t).Account()
	if token == eth {
		b, err := acct.Balance(p.ctx, addr)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	b, err := acct.TokenBalance(p.ctx, p.tokenAddress(t, token), addr)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func (p *payFixture) wantBalance(t testing.TB, token int64, addr string, want *big.Int) {
	t.Helper()
	if got := p.balance(t, token, addr); got.Cmp(want) != 0 {
		t.Fatalf("balance of %s in token %d: %s, want %s", addr, token, got, want)
	}
}

// newAddress is a fresh address nobody has used.
func newAddress(t testing.TB) string {
	t.Helper()
	k, err := crypto.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	return addressOf(k)
}

func addressOf(k *ecdsa.PrivateKey) string { return crypto.PubkeyToAddress(k.PublicKey).Hex() }

// testLog logs to the test's output when KASSA_TEST_LOG is set.
func testLog(t testing.TB) *slog.Logger {
	if os.Getenv("KASSA_TEST_LOG") == "" {
		return slog.New(slog.DiscardHandler)
	}
	return slog.New(slog.NewTextHandler(testWriter{t}, nil))
}

type testWriter struct{ t testing.TB }

func (w testWriter) Write(b []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(b), "\n"))
	return len(b), nil
}

// dropBroadcasts is an Account that signs nothing away: its broadcasts are lost,
// as when the process dies between storing a transaction and sending it.
type dropBroadcasts struct{ chain.Account }

func (dropBroadcasts) SendRaw(context.Context, []byte) error { return nil }

// invoiceWith is f.invoice with the create request c.
func (p *payFixture) invoiceWith(t testing.TB, c kassa.InvoiceCreate, token int64) (*kassa.Invoice, string) {
	t.Helper()
	pr := kassa.Principal{MerchantID: p.m.ID, Environment: kassa.Devnet, Scope: kassa.ScopeMerchant}
	inv, _, err := p.db.CreateInvoice(p.ctx, pr, c, nil)
	if err != nil {
		t.Fatal(err)
	}
	q, err := p.pay.LockAddress(p.ctx, inv, token)
	if err != nil {
		t.Fatal(err)
	}
	return inv, q.Address
}

// TestSettleOnDevChain: confirmed receipts reach the merchant as real transfers
// of exactly the amount paid: USDT, native ETH, two receipts of one deposit
// address in one sweep, the receiver override; a target on another network is
// manual. The gas wallet tops the deposit addresses up; the merchant pays no gas.
func TestSettleOnDevChain(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		p := onPayChain(t, cfg, true)
		usdtAddr := p.tokenAddress(t, usdt)
		override := newAddress(t)

		token, a1 := p.invoice(t, 10_000, usdt)
		native, a2 := p.invoice(t, 10_000, eth)
		twice, a3 := p.invoice(t, 10_000, usdt)
		passed, a4 := p.invoiceWith(t, kassa.InvoiceCreate{Amount: 7_000, ReceiverOverrideEnable: true,
			ReceiverOverrideAddress: &override}, usdt)
		p.d.send(t, 0, usdtAddr, a1, dollars(10))
		p.d.send(t, 1, "", a2, big.NewInt(5_000_000_000_000_000)) // 0.005 ETH at 2,000 USD
		p.d.send(t, 2, usdtAddr, a3, dollars(4))
		p.d.send(t, 2, usdtAddr, a3, dollars(6))
		p.d.send(t, 3, usdtAddr, a4, dollars(7))
		p.until(t, 60, "settled", func() bool { return p.settled(t, token, native, twice, passed) })

		p.wantBalance(t, usdt, p.merchant, dollars(20))
		p.wantBalance(t, eth, p.merchant, big.NewInt(5_000_000_000_000_000))
		p.wantBalance(t, usdt, override, dollars(7))
		for _, a := range []string{a1, a3, a4} {
			p.wantBalance(t, usdt, a, new(big.Int))
		}
		if _, hashes := p.settlement(t, twice); len(hashes) != 2 || hashes[0] != hashes[1] || hashes[0] == "" {
			t.Errorf("two receipts of one address: settlement transactions %v, want one sweep", hashes)
		}
		_, hashes := p.settlement(t, token)
		tx, err := p.d.pool(t).Node().Transaction(p.ctx, hashes[0])
		if err != nil || !tx.Succeeded || !strings.EqualFold(tx.From, a1) || len(tx.Transfers) != 1 ||
			!strings.EqualFold(tx.Transfers[0].To, p.merchant) || tx.Transfers[0].Amount.Cmp(dollars(10)) != 0 {
			t.Fatalf("settlement transaction %s: %+v, %v", hashes[0], tx, err)
		}

		// A merchant settling on another network settles by hand.
		target := &kassa.Settlement{Network: "bsc-testnet", TokenSymbol: "USDT", Address: p.merchant}
		if _, err := p.db.UpdateMerchant(p.ctx, p.m.ID, kassa.MerchantUpdate{
			Settlement: map[kassa.Environment]*kassa.Settlement{kassa.Devnet: target}}); err != nil {
			t.Fatal(err)
		}
		elsewhere, a5 := p.invoice(t, 10_000, usdt)
		p.d.send(t, 0, usdtAddr, a5, dollars(10))
		p.until(t, 10, "manual", func() bool {
			st, _ := p.settlement(t, elsewhere)
			return len(st) == 1 && st[0] == kassa.SettlementManual
		})
		p.wantBalance(t, usdt, a5, dollars(10))
	})
}
