package httpx

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"
)

// gcraStore is a RateStore in memory with the store's GCRA rule, counting calls.
type gcraStore struct {
	mu    sync.Mutex
	now   func() time.Time
	tat   map[string]time.Time
	calls int
}

func (s *gcraStore) TakeRate(_ context.Context, key string, interval, tolerance time.Duration) (bool, time.Duration, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls++
	now := s.now()
	tat := s.tat[key]
	if tat.Before(now) {
		tat = now
	}
	if tat.Add(interval).After(now.Add(tolerance)) {
		return false, tat.Sub(now), nil
	}
	s.tat[key] = tat.Add(interval)
	return true, tat.Add(interval).Sub(now), nil
}

// TestSharedLimiterLeases checks that a busy key takes its budget in leases (far
// fewer store calls than requests), that two limiters on one store (two instances)
// never admit more than the shared budget, and that a small burst is exact.
func TestSharedLimiterLeases(t *testing.T) {
	tests := []struct {
		name        string
		rate        float64
		burst       int
		requests    int
		wantAdmit   int // exactly, for both instances together
		wantAtLeast int // at least (leases may leave tokens unspent)
		maxCalls    int
	}{
		{name: "lifted limits", rate: 1e9, burst: 1e9, requests: 2000, wantAdmit: 2000, maxCalls: 100},
		{name: "busy key within its burst", rate: 1, burst: 640, requests: 600, wantAdmit: 600, maxCalls: 150},
		{name: "busy key past its burst", rate: 1, burst: 640, requests: 1000, wantAtLeast: 640 - 2*40, maxCalls: 450},
		{name: "small burst is exact", rate: 1, burst: 20, requests: 100, wantAdmit: 20, maxCalls: 100},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clock := time.Unix(1_700_000_000, 0)
			now := func() time.Time { return clock }
			st := &gcraStore{now: now, tat: map[string]time.Time{}}
			a, b := NewSharedLimiter(st, "general", tt.rate, tt.burst), NewSharedLimiter(st, "general", tt.rate, tt.burst)
			a.now, b.now = now, now
			admitted := 0
			for i := range tt.requests {
				l := a
				if i%2 == 1 {
					l = b
				}
				d, err := l.take(context.Background(), "key")
				if err != nil {
					t.Fatal(err)
				}
				if d.allowed {
					admitted++
				}
				if d.remaining < 0 || d.remaining > tt.burst {
					t.Fatalf("request %d: remaining %d of %d", i, d.remaining, tt.burst)
				}
			}
			if admitted > tt.burst && tt.rate < 1e9 {
				t.Fatalf("admitted %d, more than the burst %d at a stopped clock", admitted, tt.burst)
			}
			if tt.wantAdmit > 0 && admitted != tt.wantAdmit {
				t.Fatalf("admitted %d, want %d", admitted, tt.wantAdmit)
			}
			if admitted < tt.wantAtLeast {
				t.Fatalf("admitted %d, want at least %d", admitted, tt.wantAtLeast)
			}
			if st.calls > tt.maxCalls {
				t.Fatalf("%d store calls for %d requests, want at most %d", st.calls, tt.requests, tt.maxCalls)
			}
			t.Logf("%d requests: %d admitted, %d store calls", tt.requests, admitted, st.calls)
		})
	}
}

// slowStore is a gcraStore whose calls take a while, as a database round trip does.
type slowStore struct{ gcraStore }

func (s *slowStore) TakeRate(ctx context.Context, key string, interval, tolerance time.Duration) (bool, time.Duration, error) {
	time.Sleep(200 * time.Microsecond)
	return s.gcraStore.TakeRate(ctx, key, interval, tolerance)
}

// TestSharedLimiterConcurrentLeases: requests of one key arriving together when
// its lease runs out take one new lease between them, not one each (each would
// take a lease's tokens from the shared budget, and all but the last be lost): a
// busy key's admitted requests stay near its budget, and its store calls near one
// per lease.
func TestSharedLimiterConcurrentLeases(t *testing.T) {
	tests := []struct {
		name        string
		rate        float64
		burst       int
		wantAtLeast int
		maxCalls    int
	}{
		// Leases of 1 (the 16 first requests), 2, 4, ..., then 64s: about 45.
		{name: "lifted limits", rate: 1e9, burst: 1e9, wantAtLeast: 1600, maxCalls: 60},
		// Every token of the burst spent, none lost; each refusal asks the store.
		{name: "busy key past its burst", rate: 1, burst: 640, wantAtLeast: 640, maxCalls: 1100},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clock := time.Unix(1_700_000_000, 0)
			now := func() time.Time { return clock }
			st := &slowStore{gcraStore{now: now, tat: map[string]time.Time{}}}
			l := NewSharedLimiter(st, "general", tt.rate, tt.burst)
			l.now = now
			var (
				mu       sync.Mutex
				admitted int
				wg       sync.WaitGroup
			)
			for range 16 {
				wg.Go(func() {
					for range 100 {
						d, err := l.take(context.Background(), "key")
						if err != nil {
							t.Error(err)
							return
						}
						if d.allowed {
							mu.Lock()
							admitted++
							mu.Unlock()
						}
					}
				})
			}
			wg.Wait()
			st.mu.Lock()
			calls := st.calls
			st.mu.Unlock()
			t.Logf("1,600 requests from 16 goroutines: %d admitted, %d store calls", admitted, calls)
			if admitted < tt.wantAtLeast || admitted > max(tt.burst, 1600) {
				t.Errorf("admitted %d, want at least %d (and no more than the burst)", admitted, tt.wantAtLeast)
			}
			if calls > tt.maxCalls {
				t.Errorf("%d store calls, want at most %d", calls, tt.maxCalls)
			}
		})
	}
}

// failingStore is a slowStore that fails once told to, as a database down.
type failingStore struct {
	slowStore
	fail bool
}

func (s *failingStore) TakeRate(ctx context.Context, key string, interval, tolerance time.Duration) (bool, time.Duration, error) {
	s.mu.Lock()
	fail := s.fail
	s.mu.Unlock()
	if fail {
		time.Sleep(time.Millisecond)
		s.mu.Lock()
		s.calls++
		s.mu.Unlock()
		return false, 0, errors.New("store down")
	}
	return s.slowStore.TakeRate(ctx, key, interval, tolerance)
}

// TestSharedLimiterRefillFails: when the store fails while a busy key's next lease
// is taken, the requests waiting for it get the failure at once rather than each
// try the store in turn.
func TestSharedLimiterRefillFails(t *testing.T) {
	clock := time.Unix(1_700_000_000, 0)
	now := func() time.Time { return clock }
	st := &failingStore{slowStore: slowStore{gcraStore{now: now, tat: map[string]time.Time{}}}}
	l := NewSharedLimiter(st, "general", 1e9, 1e9)
	l.now = now
	for range 3 { // leases of 1 and 2, both spent: the key is busy, its next lease to share
		if _, err := l.take(context.Background(), "key"); err != nil {
			t.Fatal(err)
		}
	}
	st.mu.Lock()
	st.fail, st.calls = true, 0
	st.mu.Unlock()
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for range 16 {
		wg.Go(func() {
			_, err := l.take(context.Background(), "key")
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err == nil || err.Error() != "store down" {
			t.Fatalf("a request during the outage: %v, want the store's error", err)
		}
	}
	if st.calls > 4 {
		t.Errorf("%d store calls for 16 requests waiting on one lease, want about one", st.calls)
	}
	t.Logf("16 requests, %d store calls", st.calls)
}
