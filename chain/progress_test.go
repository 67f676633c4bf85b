package chain_test

import (
	"testing"
	"time"

	"github.com/kassapay/kassa/chain"
	"github.com/kassapay/kassa/store"
	"github.com/kassapay/kassa/store/storetest"
)

// TestWatcherProgress: Watchers.Progress reports each step's head and last block
// read, so the lag shrinks batch by batch to zero; a network never stepped on
// this instance is left out.
func TestWatcherProgress(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		f := newFixture(t, cfg)
		ws := &chain.Watchers{}
		ws.Add(f.w, time.Second)
		if p := ws.Progress(); len(p) != 0 {
			t.Fatalf("progress before any step: %+v", p)
		}
		f.sync(t)
		f.chain.mineEmpty(120)
		head, err := f.chain.Head(f.ctx)
		if err != nil {
			t.Fatal(err)
		}
		var lags []uint64
		for {
			more, err := f.w.Step(f.ctx)
			if err != nil {
				t.Fatal(err)
			}
			p := ws.Progress()
			if len(p) != 1 || p[0].Network != "devchain" || p[0].Head != head.Number || !p[0].Current ||
				time.Since(p[0].At) > time.Minute {
				t.Fatalf("progress %+v, want devchain at head %d", p, head.Number)
			}
			lags = append(lags, p[0].Head-p[0].Processed)
			if !more {
				break
			}
		}
		// Batches of 50 blocks: 120 behind, then 70, 20 and caught up.
		if len(lags) != 3 || lags[0] != 70 || lags[1] != 20 || lags[2] != 0 {
			t.Fatalf("lag after each step %v, want [70 20 0]", lags)
		}
		if _, err := f.w.Step(f.ctx); err != nil {
			t.Fatal(err)
		}
		if p := ws.Progress(); p[0].Processed != head.Number || p[0].Head != head.Number {
			t.Fatalf("at the head: %+v", p[0])
		}
	})
}
