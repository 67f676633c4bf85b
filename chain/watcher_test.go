package chain_test

import (
	"context"
	"math/big"
	"testing"
	"time"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/chain"
	"github.com/kassapay/kassa/hdwallet"
	"github.com/kassapay/kassa/invoicing"
	"github.com/kassapay/kassa/payment"
	"github.com/kassapay/kassa/registry"
	"github.com/kassapay/kassa/store"
	"github.com/kassapay/kassa/store/storetest"
)

var t0 = time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)

// Dev chain tokens of the built-in registry.
const (
	usdt int64 = 7
	usdc int64 = 8
	eth  int64 = 9
)

// fixture is a watcher of the registry's devchain network over a fake chain and
// a real store, with a merchant and the payment service that hands out addresses.
type fixture struct {
	ctx   context.Context
	db    *store.DB
	clock *storetest.Clock
	reg   *registry.Registry
	pay   *payment.Service
	m     *kassa.Merchant
	chain *fakeChain
	w     *chain.Watcher
}

func newFixture(t testing.TB, cfg store.Config) *fixture {
	t.Helper()
	clock := storetest.NewClock(t0)
	return newFixtureAt(t, cfg, clock, clock.Now)
}

// newFixtureAt is newFixture on the clock now (time.Now for measurements).
func newFixtureAt(t testing.TB, cfg store.Config, clock *storetest.Clock, now func() time.Time) *fixture {
	t.Helper()
	cfg.Now = now
	f := &fixture{ctx: context.Background(), db: storetest.Open(t, cfg), clock: clock, reg: registry.Default(), chain: newFakeChain()}
	rates, err := registry.LoadStatic("", t0)
	if err != nil {
		t.Fatal(err)
	}
	wallet, err := hdwallet.LoadOrCreate(t.TempDir(), kassa.Devnet, storetest.Secrets)
	if err != nil {
		t.Fatal(err)
	}
	f.pay = &payment.Service{Registry: f.reg, Rates: rates, Addresses: f.db, Invoices: invoicing.Over(f.db), Payments: f.db,
		Wallets: map[kassa.Environment]payment.AddressDeriver{kassa.Devnet: wallet}, Now: now}
	if f.m, err = f.db.CreateMerchant(f.ctx, kassa.MerchantCreate{Name: "Shop", Email: "owner@example.com", Password: "correct horse"}); err != nil {
		t.Fatal(err)
	}
	f.w = f.watcher(f.chain)
	return f
}

// watcher is a new watcher of devchain over n, as a restarted instance would make.
func (f *fixture) watcher(n chain.Node) *chain.Watcher {
	network, _ := f.reg.Network(kassa.Devnet, "devchain")
	var tokens []kassa.Token
	for _, t := range f.reg.Tokens(kassa.Devnet) {
		if t.Network == network.Name {
			tokens = append(tokens, t)
		}
	}
	return &chain.Watcher{Network: network, Tokens: tokens, Nodes: single{n}, Store: f.db, Rates: f.pay.Rates,
		Holder: "test", Now: f.pay.Now, Batch: 50, Keep: 20, StartBack: 1 << 62}
}

// invoice creates a devnet invoice of amount millis and locks token for it; it
// returns the invoice and its deposit address.
func (f *fixture) invoice(t testing.TB, amount kassa.Millis, token int64) (*kassa.Invoice, string) {
	t.Helper()
	p := kassa.Principal{MerchantID: f.m.ID, Environment: kassa.Devnet, Scope: kassa.ScopeMerchant}
	inv, _, err := invoicing.Over(f.db).CreateInvoice(f.ctx, p, kassa.InvoiceCreate{Amount: amount}, nil)
	if err != nil {
		t.Fatal(err)
	}
	q, err := f.pay.LockAddress(f.ctx, inv, token)
	if err != nil {
		t.Fatal(err)
	}
	return inv, q.Address
}

// sync runs watcher rounds until it reached the head.
func (f *fixture) sync(t testing.TB) {
	t.Helper()
	for range 100 {
		f.clock.Advance(time.Second)
		more, err := f.w.Round(f.ctx, time.Minute)
		if err != nil {
			t.Fatalf("Round: %v", err)
		}
		if !more {
			return
		}
	}
	t.Fatal("the watcher never reached the head")
}

// state returns inv's status and its receipts' statuses, oldest first.
func (f *fixture) state(t testing.TB, inv *kassa.Invoice) (kassa.InvoiceStatus, []*kassa.Payment) {
	t.Helper()
	got, err := f.db.Invoice(f.ctx, inv.MerchantID, inv.ID)
	if err != nil {
		t.Fatal(err)
	}
	rs, err := f.db.InvoicePayments(f.ctx, inv.MerchantID, inv.ID, 100)
	if err != nil {
		t.Fatal(err)
	}
	for i, j := 0, len(rs)-1; i < j; i, j = i+1, j-1 {
		rs[i], rs[j] = rs[j], rs[i]
	}
	return got.Status, rs
}

func (f *fixture) tokenAddress(t testing.TB, id int64) string {
	t.Helper()
	tok, ok := f.reg.Token(kassa.Devnet, id)
	if !ok {
		t.Fatalf("no token %d", id)
	}
	return tok.Address
}

// expect checks inv's status and its receipts' statuses and confirmations.
func (f *fixture) expect(t testing.TB, inv *kassa.Invoice, status kassa.InvoiceStatus, receipts ...string) {
	t.Helper()
	got, rs := f.state(t, inv)
	var have []string
	for _, r := range rs {
		have = append(have, string(r.Status)+"/"+itoa(r.Confirmations))
	}
	if got != status || len(have) != len(receipts) {
		t.Fatalf("invoice %s with %v, want %s with %v", got, have, status, receipts)
	}
	for i := range have {
		if have[i] != receipts[i] {
			t.Fatalf("invoice %s with %v, want %s with %v", got, have, status, receipts)
		}
	}
}

func itoa(n int) string { return big.NewInt(int64(n)).String() }

const usd6 = 1_000_000 // one dollar of a 6-decimal stablecoin

func TestWatcherPayments(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		f := newFixture(t, cfg)
		usdtAddr, usdcAddr := f.tokenAddress(t, usdt), f.tokenAddress(t, usdc)
		f.chain.mineEmpty(3)
		f.sync(t)

		exact, a1 := f.invoice(t, 10_000, usdt)
		partial, a2 := f.invoice(t, 10_000, usdt)
		native, a3 := f.invoice(t, 10_000, eth)
		wrong, a4 := f.invoice(t, 10_000, usdt)
		f.chain.mine(f.chain.tx(usdtAddr, a1, 10*usd6), f.chain.tx(usdtAddr, a2, 4*usd6),
			f.chain.tx("", a3, 5_000_000_000_000_000), f.chain.tx(usdcAddr, a4, 10*usd6))
		f.sync(t)
		f.expect(t, exact, kassa.StatusUnpaid, "pending/1")
		f.expect(t, partial, kassa.StatusUnpaid, "pending/1")
		f.expect(t, native, kassa.StatusUnpaid, "pending/1")
		f.expect(t, wrong, kassa.StatusUnpaid, "manual_retry/1")

		f.chain.mineEmpty(2)
		f.sync(t)
		f.expect(t, exact, kassa.StatusPaid, "confirmed/3")
		f.expect(t, partial, kassa.StatusUnderpaid, "underpaid/3")
		f.expect(t, native, kassa.StatusPaid, "confirmed/3") // 0.005 ETH at 2,000 USD

		f.chain.mine(f.chain.tx(usdtAddr, a2, 6*usd6))
		f.chain.mineEmpty(2)
		f.sync(t)
		f.expect(t, partial, kassa.StatusPaid, "underpaid/3", "confirmed/3")

		// Late money on a paid invoice is kept for a person.
		f.chain.mine(f.chain.tx(usdtAddr, a1, 1*usd6))
		f.sync(t)
		f.expect(t, exact, kassa.StatusPaid, "confirmed/3", "manual_retry/1")
	})
}

func TestWatcherReorganisations(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		f := newFixture(t, cfg)
		usdtAddr := f.tokenAddress(t, usdt)
		f.chain.mineEmpty(3)
		f.sync(t)

		// Dropped: the transfer's block leaves the chain and the transfer with it.
		dropped, a1 := f.invoice(t, 10_000, usdt)
		f.chain.mine(f.chain.tx(usdtAddr, a1, 10*usd6))
		f.sync(t)
		f.chain.reorg(1, false)
		f.sync(t)
		f.expect(t, dropped, kassa.StatusUnpaid, "pending/0")
		if _, rs := f.state(t, dropped); !rs[0].Orphaned() {
			t.Fatalf("the dropped transfer is not marked as off the chain: %+v", rs[0])
		}
		f.chain.mineEmpty(5)
		f.sync(t)
		f.expect(t, dropped, kassa.StatusUnpaid, "pending/0") // never confirmed off the chain

		// Re-included in another block at another log index: one credit.
		again, a2 := f.invoice(t, 10_000, usdt)
		f.chain.mine(f.chain.tx(usdtAddr, a2, 10*usd6))
		f.sync(t)
		f.chain.reorg(1, true)
		f.chain.mineEmpty(2)
		f.sync(t)
		f.expect(t, again, kassa.StatusPaid, "confirmed/4") // block 11 of the new branch, head 14

		// Deeper than the confirmations: the confirmed transfer goes to a person.
		deep, a3 := f.invoice(t, 10_000, usdt)
		f.chain.mine(f.chain.tx(usdtAddr, a3, 10*usd6))
		f.chain.mineEmpty(3)
		f.sync(t)
		f.expect(t, deep, kassa.StatusPaid, "confirmed/4") // seen in one step with the 3 blocks on top
		f.chain.reorg(5, false)
		f.sync(t)
		f.expect(t, deep, kassa.StatusPaid, "manual_retry/0") // paid changes only by a person's hand

		// The lost pending transfer is given up once its invoice is no longer watched.
		f.clock.Advance(kassa.QuoteLock + 48*time.Hour)
		f.chain.mine()
		f.sync(t)
		_, rs := f.state(t, dropped)
		if rs[0].Status != kassa.PaymentManualRetry {
			t.Fatalf("lost transfer after the watch: %s, want manual_retry", rs[0].Status)
		}
	})
}

func TestWatcherReorgWhileStopped(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		f := newFixture(t, cfg)
		usdtAddr := f.tokenAddress(t, usdt)
		inv, addr := f.invoice(t, 10_000, usdt)
		f.chain.mine(f.chain.tx(usdtAddr, addr, 10*usd6))
		f.sync(t)
		// Kassa stops; meanwhile the block leaves the chain and the transfer is
		// mined again later; a new watcher (a restart) picks up from the cursor.
		f.chain.reorg(1, false)
		f.chain.mineEmpty(3)
		f.w = f.watcher(f.chain)
		f.sync(t)
		f.expect(t, inv, kassa.StatusUnpaid, "pending/0")
	})
}

func TestVerifyTransaction(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		f := newFixture(t, cfg)
		usdtAddr := f.tokenAddress(t, usdt)
		f.sync(t)
		inv, addr := f.invoice(t, 10_000, usdt)
		h := f.chain.tx(usdtAddr, addr, 10*usd6)
		f.chain.mine(h)
		f.chain.mineEmpty(2)
		ws := &chain.Watchers{}
		ws.Add(f.w, time.Second)
		if !ws.Watched(kassa.Devnet, "devchain") || ws.Watched(kassa.Devnet, "bsc-testnet") {
			t.Fatal("Watched is wrong")
		}
		if err := ws.VerifyTransaction(f.ctx, inv, "devchain", h); err != nil {
			t.Fatal(err)
		}
		f.expect(t, inv, kassa.StatusPaid, "confirmed/3")
		err := ws.VerifyTransaction(f.ctx, inv, "bsc-testnet", h)
		if kassa.AsError(err).Code != "network_not_watched" {
			t.Fatalf("verify on an unwatched network: %v", err)
		}
	})
}
