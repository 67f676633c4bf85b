package worker_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kassapay/kassa/store"
	"github.com/kassapay/kassa/store/storetest"
	"github.com/kassapay/kassa/worker"
)

// TestLeasedLoopRunsOnce runs one job in two instances (two store handles on one
// database, two holders) under one lease: their rounds never overlap and only one
// instance runs them; when it stops, it gives the lease up and the other takes over.
func TestLeasedLoopRunsOnce(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		var inside, overlaps atomic.Int64
		rounds := [2]atomic.Int64{}
		ran := make(chan int, 1000)
		type runner struct {
			stop context.CancelFunc
			done chan struct{}
		}
		var runners [2]runner
		for i, holder := range []string{"instance-a", "instance-b"} {
			db := storetest.Open(t, cfg)
			ctx, stop := context.WithCancel(context.Background())
			runners[i] = runner{stop: stop, done: make(chan struct{})}
			lease := &worker.Lease{Leaser: db, Name: worker.ExpiryLease, Holder: holder, TTL: time.Minute}
			go func() {
				defer close(runners[i].done)
				worker.Loop{Name: "job", Interval: time.Millisecond, Lease: lease}.Run(ctx, func(context.Context) (bool, error) {
					if inside.Add(1) > 1 {
						overlaps.Add(1)
					}
					time.Sleep(time.Millisecond) // widen the window another round could overlap in
					inside.Add(-1)
					rounds[i].Add(1)
					select {
					case ran <- i:
					default:
					}
					return false, nil
				})
			}()
		}
		t.Cleanup(func() {
			for _, r := range runners {
				r.stop()
				<-r.done
			}
		})
		first := waitRound(t, ran, -1)
		for range 30 {
			waitRound(t, ran, -1)
		}
		if n := rounds[1-first].Load(); n != 0 {
			t.Fatalf("instance %d ran %d rounds while instance %d held the lease", 1-first, n, first)
		}
		runners[first].stop()
		<-runners[first].done
		waitRound(t, ran, 1-first) // the lease was given up: the other takes over
		if n := overlaps.Load(); n != 0 {
			t.Fatalf("%d rounds overlapped", n)
		}
	})
}

// waitRound waits for a round and returns its instance; with want >= 0, for a
// round of instance want.
func waitRound(t *testing.T, ran <-chan int, want int) int {
	t.Helper()
	deadline := time.After(30 * time.Second)
	for {
		select {
		case i := <-ran:
			if want < 0 || i == want {
				return i
			}
		case <-deadline:
			t.Fatalf("no round of instance %d within 30 s", want)
			return -1
		}
	}
}
