package store_test

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/kassapay/kassa/store"
	"github.com/kassapay/kassa/store/storetest"
)

// TestTryLease walks two instances through a lease: the first takes it, the other
// is refused until it expires, the holder renews it, an expired lease is taken
// over, only the holder releases it, and a released lease is free at once.
func TestTryLease(t *testing.T) {
	const ttl = 30 * time.Second
	type step struct {
		op      string // "try" or "release"
		holder  string
		advance time.Duration // before the step
		want    bool          // try: whether holder has the lease
	}
	steps := []step{
		{"try", "a", 0, true},
		{"try", "b", 0, false},
		{"try", "b", ttl - time.Microsecond, false}, // a's first term has a microsecond left
		{"try", "a", 0, true},                       // renewed: ttl from now
		{"try", "b", time.Microsecond, false},       // the first term is over, the renewal holds
		{"try", "b", ttl, true},                     // the renewal expired: taken over
		{"try", "a", 0, false},
		{"release", "a", 0, false}, // not a's: nothing happens
		{"try", "a", 0, false},
		{"release", "b", 0, false},
		{"try", "a", 0, true}, // released: free at once
		{"try", "a", 0, true}, // asked again: still a's
	}
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		f := newFixture(t, cfg)
		wakes := f.wakes()
		for i, s := range steps {
			f.clock.Advance(s.advance)
			switch s.op {
			case "try":
				got, err := f.db.TryLease(f.ctx, "watch:"+chainNet, s.holder, ttl)
				must(t, err)
				if got != s.want {
					t.Fatalf("step %d: TryLease(%s) = %v, want %v", i, s.holder, got, s.want)
				}
			case "release":
				must(t, f.db.ReleaseLease(f.ctx, "watch:"+chainNet, s.holder))
			}
		}
		// Another name is another lease.
		if got, err := f.db.TryLease(f.ctx, "watch:eth-sepolia", "b", ttl); err != nil || !got {
			t.Fatalf("another lease: %v (%v)", got, err)
		}
		if f.wakes() != wakes {
			t.Fatalf("leases woke followers %d times", f.wakes()-wakes)
		}
		for _, bad := range []struct {
			name, holder string
			ttl          time.Duration
		}{{"", "a", ttl}, {"n", "", ttl}, {"n", "a", 0}} {
			if _, err := f.db.TryLease(f.ctx, bad.name, bad.holder, bad.ttl); err == nil {
				t.Errorf("TryLease(%q, %q, %v) succeeded", bad.name, bad.holder, bad.ttl)
			}
		}
	})
}

// TestTryLeaseContention: of many instances trying a free lease at once, exactly
// one gets it, on both engines.
func TestTryLeaseContention(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		f := newFixture(t, cfg)
		const n = 8
		got := make([]bool, n)
		errs := make([]error, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() { got[i], errs[i] = f.db.TryLease(f.ctx, "race", fmt.Sprint("holder-", i), time.Minute) })
		}
		wg.Wait()
		winners := 0
		for i := range n {
			must(t, errs[i])
			if got[i] {
				winners++
			}
		}
		if winners != 1 {
			t.Fatalf("%d instances got the lease, want 1", winners)
		}
	})
}
