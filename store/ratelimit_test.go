package store_test

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kassapay/kassa/store"
	"github.com/kassapay/kassa/store/storetest"
)

// TestTakeRate walks one key's GCRA budget (2 per second, burst 4) on the store's
// clock: the burst at once, a refusal that changes nothing, a refill, another key,
// and the prune of refilled budgets.
func TestTakeRate(t *testing.T) {
	const interval, tolerance = 500 * time.Millisecond, 2 * time.Second
	type step struct {
		key     string
		advance time.Duration // before the step
		ok      bool
		ahead   time.Duration
	}
	steps := []step{
		{"a", 0, true, 500 * time.Millisecond},
		{"a", 0, true, time.Second},
		{"a", 0, true, 1500 * time.Millisecond},
		{"a", 0, true, 2 * time.Second},
		{"a", 0, false, 2 * time.Second},                     // empty
		{"a", 0, false, 2 * time.Second},                     // a refusal takes nothing
		{"a", 500 * time.Millisecond, true, 2 * time.Second}, // one back
		{"b", 0, true, 500 * time.Millisecond},
		{"a", time.Minute, true, 500 * time.Millisecond}, // full again
	}
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		f := newFixture(t, cfg)
		wakes := f.wakes()
		for i, s := range steps {
			f.clock.Advance(s.advance)
			ok, ahead, err := f.db.TakeRate(f.ctx, s.key, interval, tolerance)
			must(t, err)
			if ok != s.ok || ahead != s.ahead {
				t.Fatalf("step %d: TakeRate(%s) = %v, %v; want %v, %v", i, s.key, ok, ahead, s.ok, s.ahead)
			}
		}
		if f.wakes() != wakes {
			t.Fatalf("rate limits woke followers %d times", f.wakes()-wakes)
		}
		f.clock.Advance(250 * time.Millisecond) // b refilled long ago; a has a quarter second left
		if n, err := f.db.PruneRateLimits(f.ctx); err != nil || n != 1 {
			t.Fatalf("PruneRateLimits = %d, %v; want 1", n, err)
		}
		if _, _, err := f.db.TakeRate(f.ctx, "", interval, tolerance); err == nil {
			t.Fatal("TakeRate with no key succeeded")
		}
	})
}

// TestTakeRateShared: two handles on one database (two instances) drawing on one
// key at once admit exactly the burst between them while the clock stands still.
func TestTakeRateShared(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		f := newFixture(t, cfg)
		cfg.Now = f.clock.Now
		other := storetest.Open(t, cfg)
		const burst = 20
		var admitted atomic.Int64
		var wg sync.WaitGroup
		for i := range 8 {
			db := f.db
			if i%2 == 1 {
				db = other
			}
			wg.Go(func() {
				for range 10 {
					ok, _, err := db.TakeRate(f.ctx, "key:shared", time.Second, burst*time.Second)
					if err != nil {
						t.Error(err)
						return
					}
					if ok {
						admitted.Add(1)
					}
				}
			})
		}
		wg.Wait()
		if n := admitted.Load(); n != burst {
			t.Fatalf("admitted %d of 80, want the burst %d", n, burst)
		}
	})
}
