package store_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/store"
	"github.com/kassapay/kassa/store/storetest"
)

// chainNet is the network the chain tests watch.
const chainNet = "bsc-testnet"

// blockHash is the hash of block n on fork: the same height on two forks has two
// hashes.
func blockHash(n uint64, fork byte) string { return fmt.Sprintf("0x%02x%062x", fork, n) }

// blk is block n of fork, a child of block n-1 of the same fork.
func blk(n uint64, fork byte) kassa.BlockRef {
	return kassa.BlockRef{Number: n, Hash: blockHash(n, fork), Parent: blockHash(n-1, fork)}
}

// blks is blocks from..to of fork.
func blks(from, to uint64, fork byte) []kassa.BlockRef {
	var out []kassa.BlockRef
	for n := from; n <= to; n++ {
		out = append(out, blk(n, fork))
	}
	return out
}

// chainInput is a transfer of usd millis to inv in block b at log index logIndex,
// with confirmations confirmations (confirmed from 3 on).
func chainInput(inv *kassa.Invoice, hash string, logIndex int64, usd kassa.Millis, b kassa.BlockRef, confirmations int) kassa.PaymentInput {
	in := paymentInput(inv, hash, usd, confirmations >= 3)
	in.LogIndex, in.Confirmations, in.BlockNumber, in.BlockHash = logIndex, confirmations, b.Number, b.Hash
	return in
}

// chainPay ingests chainInput's transfer.
func (f *fixture) chainPay(t *testing.T, inv *kassa.Invoice, hash string, logIndex int64, usd kassa.Millis,
	b kassa.BlockRef, confirmations int) (*kassa.InvoicePayment, *kassa.Invoice) {
	t.Helper()
	r, got, err := f.db.IngestPayment(f.ctx, chainInput(inv, hash, logIndex, usd, b, confirmations))
	must(t, err)
	return r, got
}

// numbers lists the heights of bs.
func numbers(bs []kassa.BlockRef) []uint64 {
	out := make([]uint64, len(bs))
	for i, b := range bs {
		out[i] = b.Number
	}
	return out
}

// wakes is how many committed transactions so far woke the store's followers.
func (f *fixture) wakes() int64 { return f.db.Stats().Wakes }

func TestAdvanceChain(t *testing.T) {
	type step struct {
		blocks []kassa.BlockRef
		keep   int
	}
	cases := []struct {
		name    string
		steps   []step
		cursor  kassa.BlockRef
		numbers []uint64
	}{
		{"first blocks", []step{{blks(1, 3, 0), 10}}, blk(3, 0), []uint64{1, 2, 3}},
		{"one at a time", []step{{blks(1, 1, 0), 10}, {blks(2, 2, 0), 10}, {blks(3, 3, 0), 10}}, blk(3, 0), []uint64{1, 2, 3}},
		{"keeps keep below the cursor", []step{{blks(1, 5, 0), 2}}, blk(5, 0), []uint64{3, 4, 5}},
		{"keep 0 keeps the cursor's block", []step{{blks(1, 5, 0), 0}}, blk(5, 0), []uint64{5}},
		{"prunes as it advances", []step{{blks(1, 4, 0), 2}, {blks(5, 7, 0), 2}}, blk(7, 0), []uint64{5, 6, 7}},
		{"a height seen again is replaced", []step{{blks(1, 3, 0), 10}, {blks(3, 4, 1), 10}}, blk(4, 1), []uint64{1, 2, 3, 4}},
		{"nothing above the cursor is kept", []step{{blks(1, 5, 0), 10}, {blks(3, 3, 1), 10}}, blk(3, 1), []uint64{1, 2, 3}},
		{"a gap is allowed", []step{{blks(1, 2, 0), 10}, {blks(9, 9, 0), 10}}, blk(9, 0), []uint64{1, 2, 9}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
				f := newFixture(t, cfg)
				cur, err := f.db.ChainCursor(f.ctx, chainNet)
				if err != nil || cur != nil {
					t.Fatalf("cursor before any block: %+v, %v", cur, err)
				}
				wakes := f.wakes()
				for _, s := range c.steps {
					must(t, f.db.AdvanceChain(f.ctx, chainNet, "0xgenesis", s.blocks, s.keep))
				}
				cur, err = f.db.ChainCursor(f.ctx, chainNet)
				must(t, err)
				if cur == nil || cur.Network != chainNet || cur.Genesis != "0xgenesis" || cur.Block != c.cursor {
					t.Fatalf("cursor %+v, want %+v", cur, c.cursor)
				}
				got, err := f.db.ChainBlocks(f.ctx, chainNet, 0)
				must(t, err)
				if !slices.Equal(numbers(got), c.numbers) || got[len(got)-1] != c.cursor {
					t.Fatalf("blocks %v, want %v ending at the cursor", got, c.numbers)
				}
				if f.wakes() != wakes {
					t.Fatalf("advancing the chain woke followers: %d wakes", f.wakes()-wakes)
				}
			})
		})
	}
	t.Run("from, other networks, bad input", func(t *testing.T) {
		storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
			f := newFixture(t, cfg)
			must(t, f.db.AdvanceChain(f.ctx, chainNet, "0xg", blks(1, 5, 0), 10))
			must(t, f.db.AdvanceChain(f.ctx, "eth-sepolia", "0xh", blks(1, 2, 7), 10))
			got, err := f.db.ChainBlocks(f.ctx, chainNet, 4)
			must(t, err)
			if !slices.Equal(numbers(got), []uint64{4, 5}) || got[0] != blk(4, 0) {
				t.Fatalf("blocks from 4: %v", got)
			}
			other, err := f.db.ChainCursor(f.ctx, "eth-sepolia")
			must(t, err)
			if other.Genesis != "0xh" || other.Block != blk(2, 7) {
				t.Fatalf("other network's cursor %+v", other)
			}
			must(t, f.db.AdvanceChain(f.ctx, chainNet, "0xg", nil, 10)) // nothing to record
			if err := f.db.AdvanceChain(f.ctx, chainNet, "0xg", []kassa.BlockRef{blk(7, 0), blk(6, 0)}, 10); err == nil {
				t.Fatal("descending blocks were accepted")
			}
			cur, err := f.db.ChainCursor(f.ctx, chainNet)
			must(t, err)
			if cur.Block != blk(5, 0) {
				t.Fatalf("cursor moved by refused input: %+v", cur)
			}
		})
	})
}

// receipt reads back one receipt of inv by transaction hash.
func (f *fixture) receipt(t *testing.T, inv *kassa.Invoice, hash string) *kassa.InvoicePayment {
	t.Helper()
	rs, err := f.db.InvoicePayments(f.ctx, inv.MerchantID, inv.ID, 100)
	must(t, err)
	for _, r := range rs {
		if r.TxHash == hash {
			return r
		}
	}
	t.Fatalf("no receipt %s on invoice %s", hash, inv.ID)
	return nil
}

// stored reads inv back.
func (f *fixture) stored(t *testing.T, inv *kassa.Invoice) *kassa.Invoice {
	t.Helper()
	got, err := f.db.Invoice(f.ctx, inv.MerchantID, inv.ID)
	must(t, err)
	return got
}

// eventCounts counts the types of the merchant's newest n events.
func (f *fixture) eventCounts(t *testing.T, n int) map[string]int {
	t.Helper()
	out := map[string]int{}
	for _, typ := range f.eventTypes(t, n) {
		out[typ]++
	}
	return out
}

// TestRewindChain: a reorganisation detaches the receipts in the forgotten blocks.
// A pending one stays pending money with 0 confirmations; a confirmed one becomes
// manual_retry and its invoice is recomputed (underpaid back to unpaid; paid stays
// paid); receipts at or below the ancestor, on other networks and simulated ones
// are left alone.
func TestRewindChain(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		f := newFixture(t, cfg)
		pending := f.invoice(t, f.m, 1000, nil)
		underpaid := f.invoice(t, f.m, 1000, nil)
		paid := f.invoice(t, f.m, 1000, nil)
		below := f.invoice(t, f.m, 1000, nil)
		f.chainPay(t, pending, "0xa1", 0, 400, blk(10, 0), 1)
		f.chainPay(t, underpaid, "0xb1", 0, 400, blk(11, 0), 3)
		f.chainPay(t, paid, "0xc1", 0, 1000, blk(12, 0), 3)
		f.chainPay(t, below, "0xd1", 0, 400, blk(9, 0), 3)
		otherNet := chainInput(below, "0xd2", 0, 100, blk(11, 0), 3)
		otherNet.Network = "eth-sepolia"
		_, _, err := f.db.IngestPayment(f.ctx, otherNet)
		must(t, err)
		f.pay(t, below, "0xd3", 100, false) // simulated: in no block
		must(t, f.db.AdvanceChain(f.ctx, chainNet, "0xg", blks(1, 12, 0), 100))
		confirmedAt := f.receipt(t, underpaid, "0xb1").ConfirmedAt
		f.clock.Advance(1)

		changed, err := f.db.RewindChain(f.ctx, chainNet, blk(9, 0))
		must(t, err)
		var hashes []string
		for _, r := range changed {
			hashes = append(hashes, r.TxHash)
			if r.BlockHash != "" || r.Confirmations != 0 || !r.Orphaned() {
				t.Errorf("returned receipt %s: block %d %q, %d confirmations", r.TxHash, r.BlockNumber, r.BlockHash, r.Confirmations)
			}
		}
		slices.Sort(hashes)
		if !slices.Equal(hashes, []string{"0xa1", "0xb1", "0xc1"}) {
			t.Fatalf("changed %v, want 0xa1 0xb1 0xc1", hashes)
		}
		for _, c := range []struct {
			inv     *kassa.Invoice
			hash    string
			receipt kassa.InvoicePaymentStatus
			status  kassa.InvoiceStatus
			paid    kassa.Millis
			pending kassa.Millis
			block   uint64
			onChain bool
		}{
			{pending, "0xa1", kassa.PaymentPending, kassa.StatusUnpaid, 0, 400, 10, false},
			{underpaid, "0xb1", kassa.PaymentManualRetry, kassa.StatusUnpaid, 0, 0, 11, false},
			{paid, "0xc1", kassa.PaymentManualRetry, kassa.StatusPaid, 0, 0, 12, false},
			{below, "0xd1", kassa.PaymentUnderpaid, kassa.StatusUnderpaid, 500, 100, 9, true},
			{below, "0xd2", kassa.PaymentUnderpaid, kassa.StatusUnderpaid, 500, 100, 11, true},
			{below, "0xd3", kassa.PaymentPending, kassa.StatusUnderpaid, 500, 100, 0, false},
		} {
			r, inv := f.receipt(t, c.inv, c.hash), f.stored(t, c.inv)
			if r.Status != c.receipt || r.BlockNumber != c.block || (r.BlockHash != "") != c.onChain {
				t.Errorf("receipt %s: %s in block %d %q, want %s in %d (on chain %v)", c.hash, r.Status, r.BlockNumber, r.BlockHash,
					c.receipt, c.block, c.onChain)
			}
			if inv.Status != c.status || inv.AmountPaid != c.paid || inv.AmountPending != c.pending {
				t.Errorf("invoice of %s: %s paid %d pending %d, want %s paid %d pending %d", c.hash, inv.Status,
					inv.AmountPaid, inv.AmountPending, c.status, c.paid, c.pending)
			}
		}
		if r := f.receipt(t, underpaid, "0xb1"); r.ConfirmedAt == nil || !r.ConfirmedAt.Equal(*confirmedAt) {
			t.Errorf("confirmed_at %v, want kept %v", r.ConfirmedAt, confirmedAt)
		}
		want := map[string]int{"invoice_payment.updated": 3, "invoice.updated": 2}
		if got := f.eventCounts(t, 5); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("events %v, want %v", got, want)
		}
		cur, err := f.db.ChainCursor(f.ctx, chainNet)
		must(t, err)
		bs, err := f.db.ChainBlocks(f.ctx, chainNet, 0)
		must(t, err)
		if cur.Block != blk(9, 0) || cur.Genesis != "0xg" || bs[len(bs)-1] != blk(9, 0) {
			t.Fatalf("cursor %+v, last block %+v, want block 9", cur, bs[len(bs)-1])
		}

		// Rewinding again finds nothing to change, and wakes nobody.
		wakes := f.wakes()
		if changed, err := f.db.RewindChain(f.ctx, chainNet, blk(9, 0)); err != nil || len(changed) != 0 {
			t.Fatalf("second rewind changed %d receipts (%v)", len(changed), err)
		}
		if f.wakes() != wakes {
			t.Fatal("a rewind that changed no receipt woke followers")
		}
	})
}

// TestResetChain: a replaced chain forgets the cursor and blocks and detaches every
// receipt of the network that was in a canonical block.
func TestResetChain(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		f := newFixture(t, cfg)
		inv := f.invoice(t, f.m, 1000, nil)
		f.chainPay(t, inv, "0xa1", 0, 300, blk(1, 0), 3)
		f.chainPay(t, inv, "0xa2", 0, 300, blk(2, 0), 1)
		f.pay(t, inv, "0xa3", 100, true) // simulated
		must(t, f.db.AdvanceChain(f.ctx, chainNet, "0xg", blks(1, 2, 0), 10))
		must(t, f.db.AdvanceChain(f.ctx, "eth-sepolia", "0xh", blks(1, 2, 0), 10))
		f.clock.Advance(1)

		changed, err := f.db.ResetChain(f.ctx, chainNet)
		must(t, err)
		if len(changed) != 2 {
			t.Fatalf("reset changed %d receipts, want 2", len(changed))
		}
		if cur, err := f.db.ChainCursor(f.ctx, chainNet); err != nil || cur != nil {
			t.Fatalf("cursor after reset: %+v (%v)", cur, err)
		}
		if bs, err := f.db.ChainBlocks(f.ctx, chainNet, 0); err != nil || len(bs) != 0 {
			t.Fatalf("blocks after reset: %v (%v)", bs, err)
		}
		if cur, err := f.db.ChainCursor(f.ctx, "eth-sepolia"); err != nil || cur == nil {
			t.Fatalf("other network's cursor after reset: %+v (%v)", cur, err)
		}
		for hash, want := range map[string]kassa.InvoicePaymentStatus{
			"0xa1": kassa.PaymentManualRetry, "0xa2": kassa.PaymentPending, "0xa3": kassa.PaymentUnderpaid,
		} {
			if r := f.receipt(t, inv, hash); r.Status != want || (r.OnChain() && !r.Orphaned()) {
				t.Errorf("receipt %s: %s, block %d %q; want %s, detached", hash, r.Status, r.BlockNumber, r.BlockHash, want)
			}
		}
		if got := f.stored(t, inv); got.Status != kassa.StatusUnderpaid || got.AmountPaid != 100 || got.AmountPending != 300 {
			t.Fatalf("invoice after reset: %s paid %d pending %d", got.Status, got.AmountPaid, got.AmountPending)
		}
	})
}
