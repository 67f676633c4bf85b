package chain_test

import (
	"errors"
	"testing"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/chain"
	"github.com/kassapay/kassa/store"
	"github.com/kassapay/kassa/store/storetest"
)

func TestWatcherNodeFaults(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		f := newFixture(t, cfg)
		usdtAddr := f.tokenAddress(t, usdt)
		inv, addr := f.invoice(t, 10_000, usdt)
		f.chain.mineEmpty(2)
		f.sync(t)

		// A lagging node: no progress, no credit, an error the pool acts on.
		f.chain.mine(f.chain.tx(usdtAddr, addr, 10*usd6))
		f.chain.mineEmpty(2)
		f.chain.lag = 5
		if _, err := f.w.Step(f.ctx); !errors.Is(err, chain.ErrLagging) {
			t.Fatalf("Step on a lagging node: %v, want ErrLagging", err)
		}
		f.expect(t, inv, kassa.StatusUnpaid)
		f.chain.lag = 0

		// A fault in the middle of a step: nothing half-done counts twice.
		f.chain.fault = errFault
		if _, err := f.w.Step(f.ctx); !errors.Is(err, errFault) {
			t.Fatalf("Step with a fault: %v", err)
		}
		f.sync(t)
		f.expect(t, inv, kassa.StatusPaid, "confirmed/3")
	})
}

func TestWatcherCatchUp(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		f := newFixture(t, cfg)
		usdtAddr := f.tokenAddress(t, usdt)
		f.sync(t)
		inv, addr := f.invoice(t, 10_000, usdt)
		f.chain.mineEmpty(700)
		f.chain.mine(f.chain.tx(usdtAddr, addr, 10*usd6))
		f.chain.mineEmpty(300)
		f.sync(t)
		// Seen in the batch of blocks 651..700 with the batch's last block as head.
		f.expect(t, inv, kassa.StatusPaid, "confirmed/50")
		cur, err := f.db.ChainCursor(f.ctx, "devchain")
		if err != nil || cur.Block.Number != 1001 {
			t.Fatalf("cursor %+v, %v; want block 1001", cur, err)
		}
		blocks, err := f.db.ChainBlocks(f.ctx, "devchain", 0)
		if err != nil || len(blocks) > 21 {
			t.Fatalf("%d blocks remembered (%v), want at most Keep+1", len(blocks), err)
		}
		// 1,001 blocks in batches of 50: a header batch and a log query each.
		if c := f.chain.calls; c["logs"] > 25 {
			t.Errorf("calls %v: more log queries than batches", c)
		}
	})
}
