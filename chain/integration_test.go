package chain_test

import (
	"math/big"
	"testing"
	"time"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/store"
	"github.com/kassapay/kassa/store/storetest"
)

// onDevChain is a fixture whose watcher follows a real dev chain (go-ethereum's
// own node, mining a block per transaction) through a chain.Pool.
func onDevChain(t testing.TB, cfg store.Config) (*fixture, *devChain) {
	t.Helper()
	f := newFixture(t, cfg)
	d := startDevChain(t, 0)
	f.w = f.watcher(nil)
	f.w.Nodes = d.pool(t)
	return f, d
}

// statuses checks inv's status and its payments' statuses, oldest first.
func (f *fixture) statuses(t *testing.T, inv *kassa.Invoice, status kassa.InvoiceStatus, payments ...kassa.InvoicePaymentStatus) {
	t.Helper()
	got, rs := f.state(t, inv)
	var have []kassa.InvoicePaymentStatus
	for _, r := range rs {
		have = append(have, r.Status)
	}
	if got != status || len(have) != len(payments) {
		t.Fatalf("invoice %s with %v, want %s with %v", got, have, status, payments)
	}
	for i := range have {
		if have[i] != payments[i] {
			t.Fatalf("invoice %s with %v, want %s with %v", got, have, status, payments)
		}
	}
}

func dollars(n int64) *big.Int { return big.NewInt(n * usd6) }

// TestDevChainPayments: real signed transfers on the dev chain, found by the
// watcher over JSON-RPC: exact, partial then the rest, native, the wrong token,
// late and over.
func TestDevChainPayments(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		f, d := onDevChain(t, cfg)
		usdtAddr, usdcAddr := f.tokenAddress(t, usdt), f.tokenAddress(t, usdc)
		f.sync(t)

		exact, a1 := f.invoice(t, 10_000, usdt)
		partial, a2 := f.invoice(t, 10_000, usdt)
		native, a3 := f.invoice(t, 10_000, eth)
		wrong, a4 := f.invoice(t, 10_000, usdt)
		over, a5 := f.invoice(t, 10_000, usdt)
		d.send(t, 0, usdtAddr, a1, dollars(10))
		d.send(t, 0, usdtAddr, a2, dollars(4))
		d.send(t, 1, "", a3, big.NewInt(5_000_000_000_000_000)) // 0.005 ETH at 2,000 USD
		d.send(t, 0, usdcAddr, a4, dollars(10))
		d.send(t, 2, usdtAddr, a5, dollars(15))
		f.sync(t)
		_, rs := f.state(t, over)
		if len(rs) != 1 || rs[0].Status != kassa.PaymentPending || rs[0].Confirmations != 1 || rs[0].BlockHash == "" {
			t.Fatalf("the last transfer, in the head block: %+v", *rs[0])
		}
		for range 2 {
			if err := d.Mine(); err != nil {
				t.Fatal(err)
			}
		}
		f.sync(t)
		f.statuses(t, exact, kassa.StatusPaid, kassa.PaymentConfirmed)
		f.statuses(t, partial, kassa.StatusUnderpaid, kassa.PaymentUnderpaid)
		f.statuses(t, native, kassa.StatusPaid, kassa.PaymentConfirmed)
		f.statuses(t, wrong, kassa.StatusUnpaid, kassa.PaymentManualRetry)
		f.statuses(t, over, kassa.StatusPaid, kassa.PaymentConfirmed)
		if got, _ := f.db.Invoice(f.ctx, over.MerchantID, over.ID); got.AmountPaid != 15_000 {
			t.Errorf("overpaid invoice amount_paid %d, want 15000", got.AmountPaid)
		}

		d.send(t, 0, usdtAddr, a2, dollars(6))
		d.Mine()
		d.Mine()
		f.sync(t)
		f.statuses(t, partial, kassa.StatusPaid, kassa.PaymentUnderpaid, kassa.PaymentConfirmed)

		// Late: money after the invoice expired is kept for a person.
		late, a6 := f.invoice(t, 10_000, usdt)
		f.clock.Advance(kassa.DefaultInvoiceTTL + time.Hour)
		d.send(t, 0, usdtAddr, a6, dollars(10))
		d.Mine()
		d.Mine()
		f.sync(t)
		f.statuses(t, late, kassa.StatusExpired, kassa.PaymentManualRetry)
	})
}

// TestDevChainReorganisations: go-ethereum's own reorganisations. A transfer
// whose block is dropped with its transactions stops counting; one mined again
// in another block counts once.
func TestDevChainReorganisations(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		f, d := onDevChain(t, cfg)
		usdtAddr := f.tokenAddress(t, usdt)
		d.Mine()
		f.sync(t)

		dropped, a1 := f.invoice(t, 10_000, usdt)
		parent := d.head(t)
		d.send(t, 0, usdtAddr, a1, dollars(10))
		f.sync(t)
		f.statuses(t, dropped, kassa.StatusUnpaid, kassa.PaymentPending)
		d.reorgTo(t, parent, false)
		for range 4 {
			d.Mine()
		}
		f.sync(t)
		f.statuses(t, dropped, kassa.StatusUnpaid, kassa.PaymentPending)
		if _, rs := f.state(t, dropped); !rs[0].Orphaned() || rs[0].Confirmations != 0 {
			t.Fatalf("a dropped transfer still counts confirmations: %+v", rs[0])
		}

		again, a2 := f.invoice(t, 10_000, usdt)
		parent = d.head(t)
		d.send(t, 1, usdtAddr, a2, dollars(10))
		f.sync(t)
		d.reorgTo(t, parent, true) // the transaction goes back to the pool
		for range 3 {
			d.Mine()
		}
		f.sync(t)
		f.statuses(t, again, kassa.StatusPaid, kassa.PaymentConfirmed)
		if _, rs := f.state(t, again); rs[0].Orphaned() {
			t.Fatalf("the re-included transfer is still off the chain: %+v", rs[0])
		}
	})
}

// TestDevChainRestartMidScan: a watcher stopped after part of a catch-up, and a
// reorganisation while it is stopped; the next one resumes from the stored cursor
// and every transfer counts once.
func TestDevChainRestartMidScan(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		f, d := onDevChain(t, cfg)
		usdtAddr := f.tokenAddress(t, usdt)
		f.sync(t)
		a, aAddr := f.invoice(t, 10_000, usdt)
		b, bAddr := f.invoice(t, 10_000, usdt)
		d.send(t, 0, usdtAddr, aAddr, dollars(10))
		for range 20 {
			d.Mine()
		}
		d.send(t, 0, usdtAddr, bAddr, dollars(10))
		for range 3 {
			d.Mine()
		}
		f.w.Batch = 10
		if _, err := f.w.Step(f.ctx); err != nil { // blocks 2..11 only
			t.Fatal(err)
		}
		parent := d.head(t) - 1
		d.reorgTo(t, parent, false) // while stopped
		for range 3 {
			d.Mine()
		}
		pool := f.w.Nodes
		f.w = f.watcher(nil)
		f.w.Nodes = pool
		f.sync(t)
		f.statuses(t, a, kassa.StatusPaid, kassa.PaymentConfirmed)
		f.statuses(t, b, kassa.StatusPaid, kassa.PaymentConfirmed)
	})
}
