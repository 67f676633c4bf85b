package store_test

import (
	"fmt"
	"math/big"
	"testing"
	"time"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/invoicing"
	"github.com/kassapay/kassa/payment"
	"github.com/kassapay/kassa/store"
	"github.com/kassapay/kassa/store/storetest"
	"github.com/kassapay/kassa/watch"
)

// watchRate is the rate every test quote locks.
var watchRate = big.NewRat(3, 2)

// address locks inv's deposit address on network for token 1 and returns it.
func (f *fixture) address(t *testing.T, inv *kassa.Invoice, network string) *payment.Address {
	t.Helper()
	a, _, err := f.db.LockPaymentAddress(f.ctx, payment.PaymentAddressRequest{MerchantID: inv.MerchantID, InvoiceID: inv.ID,
		Token:  kassa.Token{ID: 1, Network: network, Decimals: 18},
		Derive: func(i uint32) (string, error) { return fmt.Sprintf("0x%040X", 0xabc0+i), nil },
		Quote: func(remaining kassa.Millis) (*big.Int, *big.Rat, time.Time, error) {
			return big.NewInt(int64(remaining)), watchRate, f.clock.Now().Add(kassa.QuoteLock), nil
		}})
	must(t, err)
	return a
}

// TestWatchedAddresses: an address is watched while its invoice is open, whatever
// its expiry, and until WatchAfterExpiry after expires_at otherwise (late money on
// a paid, expired or canceled invoice is kept); only its environment and network.
func TestWatchedAddresses(t *testing.T) {
	minute := func(c *kassa.InvoiceCreate) { d := time.Minute; c.ExpiresIn = &d }
	sweep := func(t *testing.T, f *fixture) {
		t.Helper()
		_, err := f.db.ExpireInvoices(f.ctx, 100)
		must(t, err)
	}
	cases := []struct {
		name    string
		setup   func(t *testing.T, f *fixture) (*kassa.Invoice, string) // the invoice and its address's network
		env     kassa.Environment                                       // queried
		watched bool
	}{
		{"unpaid", func(t *testing.T, f *fixture) (*kassa.Invoice, string) {
			return f.invoice(t, f.m, 1000, nil), chainNet
		}, kassa.Devnet, true},
		{"other network", func(t *testing.T, f *fixture) (*kassa.Invoice, string) {
			return f.invoice(t, f.m, 1000, nil), "eth-sepolia"
		}, kassa.Devnet, false},
		{"other environment", func(t *testing.T, f *fixture) (*kassa.Invoice, string) {
			m := f.merchantOn(t, "main@example.com", kassa.Mainnet)
			inv, _, err := invoicing.Over(f.db).CreateInvoice(f.ctx, kassa.Principal{MerchantID: m.ID, Environment: kassa.Mainnet,
				Scope: kassa.ScopeMerchant, KeyID: "k"}, kassa.InvoiceCreate{Amount: 1000}, nil)
			must(t, err)
			return inv, chainNet
		}, kassa.Devnet, false},
		{"mainnet, asked on mainnet", func(t *testing.T, f *fixture) (*kassa.Invoice, string) {
			m := f.merchantOn(t, "main@example.com", kassa.Mainnet)
			inv, _, err := invoicing.Over(f.db).CreateInvoice(f.ctx, kassa.Principal{MerchantID: m.ID, Environment: kassa.Mainnet,
				Scope: kassa.ScopeMerchant, KeyID: "k"}, kassa.InvoiceCreate{Amount: 1000}, nil)
			must(t, err)
			return inv, chainNet
		}, kassa.Mainnet, true},
		{"expired, within the watch", func(t *testing.T, f *fixture) (*kassa.Invoice, string) {
			inv := f.invoice(t, f.m, 1000, minute)
			f.address(t, inv, chainNet)
			f.clock.Advance(time.Minute + kassa.WatchAfterExpiry - time.Microsecond)
			sweep(t, f)
			return inv, ""
		}, kassa.Devnet, true},
		{"expired, the watch just ended", func(t *testing.T, f *fixture) (*kassa.Invoice, string) {
			inv := f.invoice(t, f.m, 1000, minute)
			f.address(t, inv, chainNet)
			f.clock.Advance(time.Minute + kassa.WatchAfterExpiry)
			sweep(t, f)
			return inv, ""
		}, kassa.Devnet, false},
		{"paid, within the watch", func(t *testing.T, f *fixture) (*kassa.Invoice, string) {
			inv := f.invoice(t, f.m, 1000, nil)
			f.address(t, inv, chainNet)
			f.pay(t, inv, "0xaa", 1000, true)
			f.clock.Advance(kassa.DefaultInvoiceTTL + time.Hour)
			return inv, ""
		}, kassa.Devnet, true},
		{"paid, the watch ended", func(t *testing.T, f *fixture) (*kassa.Invoice, string) {
			inv := f.invoice(t, f.m, 1000, nil)
			f.address(t, inv, chainNet)
			f.pay(t, inv, "0xaa", 1000, true)
			f.clock.Advance(kassa.DefaultInvoiceTTL + kassa.WatchAfterExpiry)
			return inv, ""
		}, kassa.Devnet, false},
		{"canceled, within the watch", func(t *testing.T, f *fixture) (*kassa.Invoice, string) {
			inv := f.invoice(t, f.m, 1000, nil)
			f.address(t, inv, chainNet)
			_, err := invoicing.Over(f.db).CancelInvoice(f.ctx, principal(f.m), inv.ID)
			must(t, err)
			return inv, ""
		}, kassa.Devnet, true},
		{"underpaid past the watch, not yet swept", func(t *testing.T, f *fixture) (*kassa.Invoice, string) {
			inv := f.invoice(t, f.m, 1000, minute)
			f.address(t, inv, chainNet)
			f.pay(t, inv, "0xaa", 400, true)
			f.clock.Advance(time.Minute + 2*kassa.WatchAfterExpiry)
			return inv, ""
		}, kassa.Devnet, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
				f := newFixture(t, cfg)
				inv, network := c.setup(t, f)
				var a *payment.Address
				if network != "" {
					a = f.address(t, inv, network)
				} else {
					var err error
					a, err = f.db.PaymentAddress(f.ctx, inv.ID, chainNet)
					must(t, err)
				}
				got, err := f.db.WatchedAddresses(f.ctx, c.env, chainNet, f.clock.Now())
				must(t, err)
				if !c.watched {
					if len(got) != 0 {
						t.Fatalf("watched %+v, want none", got)
					}
					return
				}
				want := watch.Address{Address: a.Address, InvoiceID: inv.ID, MerchantID: inv.MerchantID,
					Environment: c.env, TokenID: 1, QuoteExpiresAt: a.ExpiresAt, InvoiceExpiresAt: inv.ExpiresAt}
				if len(got) != 1 || got[0].USDPerToken == nil || got[0].USDPerToken.Cmp(watchRate) != 0 {
					t.Fatalf("watched %+v, want %+v at %v", got, want, watchRate)
				}
				if got[0].USDPerToken = nil; got[0] != want {
					t.Fatalf("watched %+v, want %+v", got[0], want)
				}
			})
		})
	}
}

// TestWatchedAddressesSince: the watcher's incremental read. After a mark it lists
// the addresses locked or requoted since, with their current quote, only of its
// environment and network, and only while their invoices are watched, and moves
// the mark past what it read; StillWatched tells which invoices are still watched.
func TestWatchedAddressesSince(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		f := newFixture(t, cfg)
		since := func(t *testing.T, mark int64) ([]watch.Address, int64) {
			t.Helper()
			got, next, err := f.db.WatchedAddressesSince(f.ctx, kassa.Devnet, chainNet, mark, f.clock.Now())
			must(t, err)
			if next < mark {
				t.Fatalf("mark went back from %d to %d", mark, next)
			}
			return got, next
		}
		mark, err := f.db.QuoteMark(f.ctx, kassa.Devnet, chainNet)
		must(t, err)
		if got, next := since(t, mark); len(got) != 0 || next != mark {
			t.Fatalf("nothing locked: %+v, mark %d -> %d", got, mark, next)
		}
		first := f.invoice(t, f.m, 1000, nil)
		a := f.address(t, first, chainNet)
		f.address(t, f.invoice(t, f.m, 1000, nil), "eth-sepolia") // another network
		got, m1 := since(t, mark)
		if len(got) != 1 || got[0].Address != a.Address || got[0].InvoiceID != first.ID || got[0].TokenID != 1 ||
			!got[0].InvoiceExpiresAt.Equal(first.ExpiresAt) {
			t.Fatalf("after a lock: %+v, want %s", got, a.Address)
		}
		if got, next := since(t, m1); len(got) != 0 || next != m1 {
			t.Fatalf("nothing new: %+v, mark %d -> %d", got, m1, next)
		}

		// A requote in another token: the same address, the new token.
		_, _, err = f.db.LockPaymentAddress(f.ctx, payment.PaymentAddressRequest{MerchantID: first.MerchantID, InvoiceID: first.ID,
			Token:  kassa.Token{ID: 2, Network: chainNet, Decimals: 6},
			Derive: func(i uint32) (string, error) { return "", fmt.Errorf("derived %d again", i) },
			Quote: func(remaining kassa.Millis) (*big.Int, *big.Rat, time.Time, error) {
				return big.NewInt(int64(remaining)), big.NewRat(1, 1), f.clock.Now().Add(kassa.QuoteLock), nil
			}})
		must(t, err)
		got, m2 := since(t, m1)
		if len(got) != 1 || got[0].Address != a.Address || got[0].TokenID != 2 || got[0].USDPerToken.Cmp(big.NewRat(1, 1)) != 0 {
			t.Fatalf("after a requote: %+v, want %s in token 2", got, a.Address)
		}

		// Locked, then paid and past its watch: not listed, the mark moves on.
		short := func(c *kassa.InvoiceCreate) { d := time.Minute; c.ExpiresIn = &d }
		done := f.invoice(t, f.m, 1000, short)
		f.address(t, done, chainNet)
		f.pay(t, done, "0xaa", 1000, true)
		f.clock.Advance(time.Minute + kassa.WatchAfterExpiry)
		got, m3 := since(t, m2)
		if len(got) != 0 || m3 <= m2 {
			t.Fatalf("an invoice past its watch: %+v, mark %d -> %d", got, m2, m3)
		}
		still, err := f.db.StillWatched(f.ctx, kassa.Devnet, []string{first.ID, done.ID, "inv_unknown"}, f.clock.Now())
		must(t, err)
		if len(still) != 1 || still[0] != first.ID {
			t.Fatalf("still watched %v, want only %s", still, first.ID)
		}
		if m, err := f.db.QuoteMark(f.ctx, kassa.Devnet, chainNet); err != nil || m != m3 {
			t.Fatalf("quote mark %d (%v), want %d", m, err, m3)
		}
	})
}

// TestPendingChainPayments lists a network's pending receipts seen in a block,
// orphaned ones included, and unresolved set-aside ones short of their
// confirmations; not confirmed ones, simulated ones, other networks', set-aside
// ones with their confirmations or resolved.
func TestPendingChainPayments(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		f := newFixture(t, cfg)
		inv := f.invoice(t, f.m, 10_000, nil)
		f.chainPay(t, inv, "0xa1", 0, 100, blk(12, 0), 1) // pending
		f.chainPay(t, inv, "0xa2", 0, 100, blk(10, 0), 1) // pending, orphaned below
		f.chainPay(t, inv, "0xa3", 0, 100, blk(9, 0), 3)  // confirmed
		f.pay(t, inv, "0xa4", 100, false)                 // simulated
		other := chainInput(inv, "0xa5", 0, 100, blk(11, 0), 1)
		other.Network = "eth-sepolia"
		_, _, err := f.db.IngestPayment(f.ctx, other)
		must(t, err)
		_, err = f.db.RewindChain(f.ctx, chainNet, blk(10, 0)) // 0xa1 left the chain
		must(t, err)
		// Money on a paid invoice, set aside: counted until it has 3
		// confirmations, so a person can accept or dismiss it then.
		paid := f.invoice(t, f.m, 1000, nil)
		f.pay(t, paid, "0xb0", 1000, true)
		f.chainPay(t, paid, "0xb1", 0, 100, blk(8, 0), 1)
		f.chainPay(t, paid, "0xb2", 0, 100, blk(7, 0), 3)
		f.chainPay(t, paid, "0xb3", 0, 100, blk(6, 0), 1)
		_, rs, err := f.db.InvoiceWithPayments(f.ctx, f.m.ID, paid.ID, 0)
		must(t, err)
		for _, r := range rs {
			if r.TxHash != "0xb0" && r.Status != kassa.PaymentManualRetry {
				t.Fatalf("%s on a paid invoice: %s", r.TxHash, r.Status)
			}
			if r.TxHash == "0xb3" {
				_, err := resolvePayment(f, principal(f.m), paid.ID, r.ID, kassa.ResolveRequest{How: kassa.ResolutionDismissed})
				must(t, err)
			}
		}

		got, err := f.db.PendingChainPayments(f.ctx, chainNet, 3)
		must(t, err)
		if len(got) != 3 || got[0].TxHash != "0xb1" || got[1].TxHash != "0xa2" || got[2].TxHash != "0xa1" ||
			!got[2].Orphaned() || got[1].Orphaned() {
			t.Fatalf("pending chain payments %+v, want 0xb1 (set aside), 0xa2, then 0xa1 (orphaned)", got)
		}
	})
}

// TestAbandonLostPayments: a pending receipt whose block left the chain becomes
// manual_retry once its invoice's watch ends, and its invoice is recomputed (it
// expires); one still watched, or still on the chain, is left for now. With
// nothing to abandon it only reads.
func TestAbandonLostPayments(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		f := newFixture(t, cfg)
		short := func(c *kassa.InvoiceCreate) { d := time.Minute; c.ExpiresIn = &d }
		lost := f.invoice(t, f.m, 1000, short)
		f.chainPay(t, lost, "0xa1", 0, 400, blk(10, 0), 1)
		watched := f.invoice(t, f.m, 1000, nil) // expires in 12 hours
		f.chainPay(t, watched, "0xb1", 0, 400, blk(10, 0), 1)
		onChain := f.invoice(t, f.m, 1000, short)
		f.chainPay(t, onChain, "0xc1", 0, 400, blk(5, 0), 1)
		_, err := f.db.RewindChain(f.ctx, chainNet, blk(9, 0))
		must(t, err)

		f.clock.Advance(time.Minute + kassa.WatchAfterExpiry - time.Microsecond)
		if got, err := f.db.AbandonLostPayments(f.ctx, chainNet, f.clock.Now(), 3); err != nil || len(got) != 0 {
			t.Fatalf("abandoned %d before the watch ended (%v)", len(got), err)
		}
		f.clock.Advance(time.Microsecond)
		before := f.db.Stats()
		got, err := f.db.AbandonLostPayments(f.ctx, chainNet, f.clock.Now(), 3)
		must(t, err)
		if len(got) != 1 || got[0].TxHash != "0xa1" || got[0].Status != kassa.PaymentManualRetry {
			t.Fatalf("abandoned %+v, want 0xa1 manual_retry", got)
		}
		if after := f.db.Stats(); after.Wakes != before.Wakes+1 {
			t.Fatalf("abandoning woke followers %d times, want once", after.Wakes-before.Wakes)
		}
		want := map[string]int{"invoice_payment.updated": 1, "invoice.updated": 1, "invoice.expired": 1}
		if got := f.eventCounts(t, 3); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("events %v, want %v", got, want)
		}
		for _, c := range []struct {
			inv     *kassa.Invoice
			hash    string
			receipt kassa.PaymentStatus
			status  kassa.InvoiceStatus
			pending kassa.Millis
		}{
			{lost, "0xa1", kassa.PaymentManualRetry, kassa.StatusExpired, 0},
			{watched, "0xb1", kassa.PaymentPending, kassa.StatusUnpaid, 400},
			{onChain, "0xc1", kassa.PaymentPending, kassa.StatusUnpaid, 400},
		} {
			if r, inv := f.receipt(t, c.inv, c.hash), f.stored(t, c.inv); r.Status != c.receipt || inv.Status != c.status ||
				inv.AmountPending != c.pending {
				t.Errorf("%s: receipt %s, invoice %s pending %d; want %s, %s pending %d", c.hash, r.Status, inv.Status,
					inv.AmountPending, c.receipt, c.status, c.pending)
			}
		}

		before = f.db.Stats()
		if got, err := f.db.AbandonLostPayments(f.ctx, chainNet, f.clock.Now(), 3); err != nil || len(got) != 0 {
			t.Fatalf("abandoned %d again (%v)", len(got), err)
		}
		if after := f.db.Stats(); after != before {
			t.Fatalf("nothing to abandon ran %d transactions", after.Transactions-before.Transactions)
		}
	})
}

// TestAbandonLostPaymentOnPaidInvoice: a pending receipt on a paid invoice whose
// block left the chain is set aside (reorged) once its transaction had the
// network's confirmations in blocks to come back and did not, not a day after
// expiry; before that it stays pending money. Both engines.
func TestAbandonLostPaymentOnPaidInvoice(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		f := newFixture(t, cfg)
		must(t, f.db.AdvanceChain(f.ctx, chainNet, "0xg", blks(1, 10, 0), 100))
		inv := f.invoice(t, f.m, 1000, nil)
		f.chainPay(t, inv, "0xa1", 0, 1000, blk(8, 0), 1)      // pending
		f.chainPay(t, inv, "0xa2", 0, 300, blk(10, 0), 1)      // more, pending
		f.chainPay(t, inv, "0xa1", 0, 1000, blk(8, 0), 3)      // the first confirms: paid
		_, err := f.db.RewindChain(f.ctx, chainNet, blk(9, 0)) // 0xa2 left the chain
		must(t, err)
		if got := f.stored(t, inv); got.Status != kassa.StatusPaid || got.AmountPending != 300 {
			t.Fatalf("after the reorganisation: %s pending %d", got.Status, got.AmountPending)
		}
		// Blocks 10 to 12 of the new fork: the transaction had two blocks to come back.
		must(t, f.db.AdvanceChain(f.ctx, chainNet, "0xg", []kassa.BlockRef{
			{Number: 10, Hash: blockHash(10, 1), Parent: blockHash(9, 0)},
			{Number: 11, Hash: blockHash(11, 1), Parent: blockHash(10, 1)},
			{Number: 12, Hash: blockHash(12, 1), Parent: blockHash(11, 1)}}, 100))
		if got, err := f.db.AbandonLostPayments(f.ctx, chainNet, f.clock.Now(), 3); err != nil || len(got) != 0 {
			t.Fatalf("set aside %d with one block still to come (%v)", len(got), err)
		}
		must(t, f.db.AdvanceChain(f.ctx, chainNet, "0xg", []kassa.BlockRef{
			{Number: 13, Hash: blockHash(13, 1), Parent: blockHash(12, 1)}}, 100))
		got, err := f.db.AbandonLostPayments(f.ctx, chainNet, f.clock.Now(), 3)
		must(t, err)
		if len(got) != 1 || got[0].TxHash != "0xa2" || got[0].Status != kassa.PaymentManualRetry || got[0].AttentionReason != kassa.AttentionReorged {
			t.Fatalf("set aside %+v, want 0xa2 manual_retry (reorged)", got)
		}
		if after := f.stored(t, inv); after.Status != kassa.StatusPaid || after.AmountPending != 0 || after.AmountPaid != 1000 {
			t.Fatalf("invoice after: %s paid %d pending %d", after.Status, after.AmountPaid, after.AmountPending)
		}
	})
}
