package chain

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/hdwallet"
	"github.com/kassapay/kassa/invoicing"
	"github.com/kassapay/kassa/payment"
	"github.com/kassapay/kassa/registry"
	"github.com/kassapay/kassa/store"
	"github.com/kassapay/kassa/store/storetest"
	"github.com/kassapay/kassa/watch"
)

// oneNode steps on one node.
type oneNode struct{ n Node }

func (o oneNode) Step(_ context.Context, fn func(Node) error) error { return fn(o.n) }

// scanCounter is the real store, counting verify's scans of the watched addresses.
type scanCounter struct {
	Store
	scans atomic.Int64
}

func (s *scanCounter) WatchedAddresses(ctx context.Context, env kassa.Environment, network string, now time.Time) ([]watch.Address, error) {
	s.scans.Add(1)
	return s.Store.WatchedAddresses(ctx, env, network, now)
}

// TestVerifyRemembersLookUps: verify's look-up of a hash, found or not, is
// remembered for LookupTTL. The same hash again within it makes no RPC call
// (counted at a JSON-RPC node on loopback) and no store scan; after it, the node
// is asked again. A found transfer is ingested once, and the invoice is paid.
func TestVerifyRemembersLookUps(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		ctx := context.Background()
		clock := storetest.NewClock(time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC))
		cfg.Now = clock.Now
		db := storetest.Open(t, cfg)
		reg := registry.Default()
		rates, err := registry.LoadStatic("", clock.Now())
		if err != nil {
			t.Fatal(err)
		}
		wallet, err := hdwallet.LoadOrCreate(t.TempDir(), kassa.Devnet, storetest.Secrets)
		if err != nil {
			t.Fatal(err)
		}
		pay := &payment.Service{Registry: reg, Rates: rates, Addresses: db, Invoices: invoicing.Over(db), Payments: db,
			Wallets: map[kassa.Environment]payment.AddressDeriver{kassa.Devnet: wallet}, Now: clock.Now}
		m, err := db.CreateMerchant(ctx, kassa.MerchantCreate{Name: "Shop", Email: "owner@example.com", Password: "correct horse"})
		if err != nil {
			t.Fatal(err)
		}
		inv, _, err := invoicing.Over(db).CreateInvoice(ctx, kassa.Principal{MerchantID: m.ID, Environment: kassa.Devnet, Scope: kassa.ScopeMerchant},
			kassa.InvoiceCreate{Amount: 10_000}, nil)
		if err != nil {
			t.Fatal(err)
		}
		const usdt = 7 // the dev chain's USDT in the built-in registry
		q, err := pay.LockAddress(ctx, inv, usdt)
		if err != nil {
			t.Fatal(err)
		}
		tok, _ := reg.Token(kassa.Devnet, usdt)
		network, _ := reg.Network(kassa.Devnet, "devchain")
		var tokens []kassa.Token
		for _, tk := range reg.Tokens(kassa.Devnet) {
			if tk.Network == network.Name {
				tokens = append(tokens, tk)
			}
		}

		node := newFakeNode(t, network.ChainID, 20)
		paid := fakeTxHash(7, 1)
		node.set(func(f *fakeNode) {
			f.txs[paid] = fakeTx{Block: 7, Status: 1, Logs: []fakeLog{
				{Token: tok.Address, From: fakeAddr(1), To: strings.ToLower(q.Address), Amount: 10_000_000, Block: 7, Index: 1}}}
		})
		st := &scanCounter{Store: db}
		ws := &Watchers{}
		ws.Add(&Watcher{Network: network, Tokens: tokens, Nodes: oneNode{newTestRPC(t, node, 0)}, Store: st, Rates: rates,
			Holder: "test", Now: clock.Now}, time.Second)

		lookUps := func() int {
			_, n := node.count("eth_getTransactionByHash")
			return n
		}
		steps := []struct {
			name           string
			hash           string
			advance        time.Duration
			lookUps, scans int // the totals after the step
		}{
			{"a made-up hash", "0x" + strings.Repeat("ab", 32), 0, 1, 0},
			{"the same hash again", "0x" + strings.Repeat("ab", 32), 0, 1, 0},
			{"again, in capitals, within the window", "0x" + strings.Repeat("AB", 32), LookupTTL - time.Second, 1, 0},
			{"again after the window", "0x" + strings.Repeat("ab", 32), time.Second, 2, 0},
			{"the paying transaction", paid, 0, 3, 1},
			{"the paying transaction again", paid, 0, 3, 1},
			{"the paying transaction after the window", paid, LookupTTL, 4, 2},
		}
		for _, s := range steps {
			clock.Advance(s.advance)
			if err := ws.VerifyTransaction(ctx, inv, "devchain", s.hash); err != nil {
				t.Fatalf("%s: %v", s.name, err)
			}
			if got, scans := lookUps(), int(st.scans.Load()); got != s.lookUps || scans != s.scans {
				t.Fatalf("%s: %d look-ups and %d store scans in all, want %d and %d", s.name, got, scans, s.lookUps, s.scans)
			}
		}
		got, err := db.Invoice(ctx, m.ID, inv.ID)
		if err != nil || got.Status != kassa.StatusPaid {
			t.Fatalf("the invoice after verify: %+v, %v", got, err)
		}
	})
}

// TestLookupCacheBounded: the cache holds at most maxLookups look-ups.
func TestLookupCacheBounded(t *testing.T) {
	var c lookupCache
	now := time.Unix(1000, 0)
	for i := range maxLookups + 100 {
		if _, err := c.get(context.Background(), strings.Repeat("k", 1+i%7)+time.Duration(i).String(), now,
			func() (*lookup, error) { return &lookup{}, nil }); err != nil {
			t.Fatal(err)
		}
	}
	if n := len(c.entries); n > maxLookups {
		t.Fatalf("%d look-ups remembered, want at most %d", n, maxLookups)
	}
}
