package chain_test

import (
	"context"
	"testing"
	"time"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/chain"
	"github.com/kassapay/kassa/invoicing"
	"github.com/kassapay/kassa/store"
	"github.com/kassapay/kassa/store/storetest"
	"github.com/kassapay/kassa/watch"
)

// fullReads is the real store, counting the watcher's whole reads of its addresses.
type fullReads struct {
	chain.Store
	n int
}

func (s *fullReads) WatchedAddresses(ctx context.Context, env kassa.Environment, network string, now time.Time) ([]watch.Address, error) {
	s.n++
	return s.Store.WatchedAddresses(ctx, env, network, now)
}

// TestWatcherKeepsAddressesUpToDate: the watcher reads its deposit addresses whole
// once and then only what changed. An address locked after that is found; an
// invoice requoted to the native coin after it makes the next block's bodies read
// and its native payment found; an invoice whose watch ended is dropped, and money
// to it afterwards is not recorded (as before, when the set was read every step).
func TestWatcherKeepsAddressesUpToDate(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		f := newFixture(t, cfg)
		reads := &fullReads{Store: f.db}
		f.w.Store = reads
		usdtAddr := f.tokenAddress(t, usdt)
		short := func(t *testing.T) (*kassa.Invoice, string) {
			t.Helper()
			d := time.Hour
			p := kassa.Principal{MerchantID: f.m.ID, Environment: kassa.Devnet, Scope: kassa.ScopeMerchant}
			inv, _, err := invoicing.Over(f.db).CreateInvoice(f.ctx, p, kassa.InvoiceCreate{Amount: 10_000, ExpiresIn: &d}, nil)
			if err != nil {
				t.Fatal(err)
			}
			q, err := f.pay.LockAddress(f.ctx, inv, usdt)
			if err != nil {
				t.Fatal(err)
			}
			return inv, q.Address
		}
		ending, a0 := short(t)
		f.chain.mineEmpty(3)
		f.sync(t)

		later, a1 := f.invoice(t, 10_000, usdt)
		requoted, a2 := f.invoice(t, 10_000, usdt)
		f.chain.mine(f.chain.tx(usdtAddr, a1, 4*usd6))
		f.sync(t)
		f.expect(t, later, kassa.StatusUnpaid, "pending/1")

		if q, err := f.pay.LockAddress(f.ctx, requoted, eth); err != nil || q.Address != a2 {
			t.Fatalf("requote in ETH: %+v, %v", q, err)
		}
		f.chain.mine(f.chain.tx("", a2, 5_000_000_000_000_000))
		f.sync(t)
		f.expect(t, requoted, kassa.StatusUnpaid, "pending/1")

		f.clock.Advance(time.Hour + kassa.WatchAfterExpiry)
		if _, err := f.db.ExpireInvoices(f.ctx, 100); err != nil {
			t.Fatal(err)
		}
		f.chain.mineEmpty(1)
		f.sync(t)
		f.chain.mine(f.chain.tx(usdtAddr, a0, 10*usd6))
		f.sync(t)
		f.expect(t, ending, kassa.StatusExpired)
		f.expect(t, requoted, kassa.StatusPaid, "confirmed/3")
		if reads.n != 1 {
			t.Fatalf("the addresses were read whole %d times, want once", reads.n)
		}
	})
}
