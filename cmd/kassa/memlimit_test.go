package main

import (
	"context"
	"runtime/debug"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
)

// mib is a mebibyte, in the memory tests' figures.
const mib = 1 << 20

// TestMemoryLimit: the limit is the target while the live heap is small, and
// rises with a large one so it never collects more often than GOGC 100.
func TestMemoryLimit(t *testing.T) {
	for _, tt := range []struct {
		name string
		live uint64
		want int64
	}{
		{"idle", 10 * mib, memoryTarget},
		{"create load", 18 * mib, memoryTarget},
		{"at the turn", (memoryTarget - runtimeOverhead) / 2, memoryTarget},
		{"10,000 subscribers", 100 * mib, 200*mib + runtimeOverhead},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := memoryLimit(tt.live); got != tt.want {
				t.Errorf("memoryLimit(%d MiB) = %d MiB, want %d MiB", tt.live/mib, got/mib, tt.want/mib)
			}
		})
	}
}

// TestHoldMemory: serve's loop sets the limit for the live heap at once, follows
// the live heap from period to period, and puts back the limit it found when it
// stops; an operator's GOMEMLIMIT leaves the limit alone.
func TestHoldMemory(t *testing.T) {
	t.Setenv("GOMEMLIMIT", "")
	before := debug.SetMemoryLimit(-1)
	synctest.Test(t, func(t *testing.T) {
		var live atomic.Uint64
		live.Store(10 * mib)
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() { holdMemory(ctx, time.Second, live.Load); close(done) }()
		synctest.Wait()
		if got := debug.SetMemoryLimit(-1); got != memoryTarget {
			t.Errorf("limit with a small live heap = %d MiB, want %d MiB", got/mib, memoryTarget/mib)
		}
		live.Store(100 * mib)
		time.Sleep(time.Second) // one period of the loop, on the bubble's clock
		synctest.Wait()
		if got, want := debug.SetMemoryLimit(-1), memoryLimit(100*mib); got != want {
			t.Errorf("limit after the live heap grew = %d MiB, want %d MiB", got/mib, want/mib)
		}
		cancel()
		<-done
	})
	if got := debug.SetMemoryLimit(-1); got != before {
		t.Errorf("limit after the loop stopped = %d, want the one it found, %d", got, before)
	}

	t.Setenv("GOMEMLIMIT", "1GiB")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	holdMemory(ctx, time.Second, func() uint64 { return 100 * mib })
	if got := debug.SetMemoryLimit(-1); got != before {
		t.Errorf("with GOMEMLIMIT set the limit became %d, want it left at %d", got, before)
	}
}
