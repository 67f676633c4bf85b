package chain

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestPoolFailover: a faulty node's step runs again on the next node; the faulty
// one is skipped while it backs off and used again after.
func TestPoolFailover(t *testing.T) {
	for _, fault := range []string{"500", "429", "hang", "garbage", "wrongNumber", "shortHash", "lagging"} {
		t.Run(fault, func(t *testing.T) {
			a, b := newFakeNode(t, 1337, 10), newFakeNode(t, 1337, 10)
			tp := newTestPool(t, 200*time.Millisecond, a, b)
			if err := tp.Check(context.Background()); err != nil {
				t.Fatal(err)
			}
			a.set(func(f *fakeNode) {
				if f.fault = fault; fault == "lagging" {
					f.fault, f.head = "", 4
				}
			})
			ctx := context.Background()
			if used, err := tp.step(t, ctx, 5); err != nil || used != 1 {
				t.Fatalf("first step: node %d, %v; want node 1", used, err)
			}
			if tp.Stats().Failovers != 1 {
				t.Errorf("failovers %d, want 1", tp.Stats().Failovers)
			}
			before, _ := a.count("")
			if used, err := tp.step(t, ctx, 5); err != nil || used != 1 {
				t.Fatalf("second step: node %d, %v; want node 1", used, err)
			}
			if after, _ := a.count(""); after != before {
				t.Errorf("the backing-off node got %d requests", after-before)
			}
			a.set(func(f *fakeNode) { f.fault, f.head = "", 10 })
			tp.clock.Add(time.Minute)
			_, ids := a.count("eth_chainId")
			if used, err := tp.step(t, ctx, 5); err != nil || used != 0 {
				t.Fatalf("after the backoff: node %d, %v; want node 0", used, err)
			}
			// A transport fault makes the chain id be asked again; lagging does not.
			if _, ids2 := a.count("eth_chainId"); (ids2 == ids+1) != (fault != "lagging") {
				t.Errorf("eth_chainId calls %d → %d", ids, ids2)
			}
			if s := tp.Stats(); s.Failovers != 1 || (fault != "lagging" && s.Endpoints[0].Faults != 1) {
				t.Errorf("stats %+v", s)
			}
		})
	}
}

func TestPoolBackoff(t *testing.T) {
	a, b := newFakeNode(t, 1337, 10), newFakeNode(t, 1337, 10)
	tp := newTestPool(t, 0, a, b)
	a.set(func(f *fakeNode) { f.fault = "500" })
	ctx := context.Background()
	// Jittered: the nth fault backs off 0.5 s × 2^(n-1) ± 20 %.
	tests := []struct {
		advance  time.Duration
		wantUsed bool // a is tried (and fails again)
	}{
		{0, true},                        // fault 1: 0.4–0.6 s
		{300 * time.Millisecond, false},  // t = 0.3
		{400 * time.Millisecond, true},   // t = 0.7; fault 2: 0.8–1.2 s
		{700 * time.Millisecond, false},  // +0.7
		{600 * time.Millisecond, true},   // +1.3; fault 3: 1.6–2.4 s
		{1500 * time.Millisecond, false}, // +1.5
		{time.Second, true},              // +2.5
	}
	for i, tt := range tests {
		tp.clock.Add(tt.advance)
		before, _ := a.count("")
		if used, err := tp.step(t, ctx, 0); err != nil || used != 1 {
			t.Fatalf("step %d: node %d, %v", i, used, err)
		}
		if after, _ := a.count(""); (after > before) != tt.wantUsed {
			t.Errorf("step %d: faulty node tried %v, want %v", i, after > before, tt.wantUsed)
		}
	}
	// A 429's Retry-After outlasts the backoff.
	a.set(func(f *fakeNode) { f.fault, f.retryAfter = "429", "120" })
	tp.clock.Add(time.Minute)
	for _, tt := range []struct {
		advance  time.Duration
		wantUsed int
	}{{0, 1}, {31 * time.Second, 1}, {90 * time.Second, 0}} {
		tp.clock.Add(tt.advance)
		if tt.wantUsed == 0 {
			a.set(func(f *fakeNode) { f.fault = "" })
		}
		before, _ := a.count("")
		if used, err := tp.step(t, ctx, 0); err != nil || used != tt.wantUsed {
			t.Fatalf("+%v: node %d, %v; want node %d", tt.advance, used, err, tt.wantUsed)
		}
		if after, _ := a.count(""); tt.advance == 31*time.Second && after != before {
			t.Errorf("asked within its Retry-After")
		}
	}
}

func TestPoolAnswerIsNotAFault(t *testing.T) {
	a, b := newFakeNode(t, 1337, 10), newFakeNode(t, 1337, 10)
	tp := newTestPool(t, 0, a, b)
	if err := tp.Check(context.Background()); err != nil {
		t.Fatal(err)
	}
	a.set(func(f *fakeNode) { f.fault = "reverted" })
	for range 2 {
		if _, err := tp.step(t, context.Background(), 0); err == nil || !strings.Contains(err.Error(), "execution reverted") {
			t.Fatalf("error %v", err)
		}
	}
	if requests, _ := b.count(""); requests != 1 || tp.Stats().Failovers != 0 { // 1: Check
		t.Errorf("failed over on an answer: %d requests", requests)
	}
	a.set(func(f *fakeNode) { f.fault = "" })
	if _, err := tp.Node().Transaction(context.Background(), fakeTxHash(1, 1)); !errors.Is(err, ErrNotFound) {
		t.Errorf("Node().Transaction: %v, want ErrNotFound", err)
	}
	if h, err := tp.Node().Head(context.Background()); err != nil || h.Number != 10 {
		t.Errorf("Node().Head: %v, %v", h, err)
	}
}

func TestPoolAllDown(t *testing.T) {
	a, b := newFakeNode(t, 1337, 10), newFakeNode(t, 1337, 10)
	tp := newTestPool(t, 0, a, b)
	a.set(func(f *fakeNode) { f.fault = "500" })
	b.set(func(f *fakeNode) { f.fault = "garbage" })
	_, err := tp.step(t, context.Background(), 0)
	var ee *EndpointError
	if !errors.Is(err, ErrUnavailable) || !errors.As(err, &ee) || ee.Kind != FaultGarbage {
		t.Fatalf("error %v, want ErrUnavailable and the last fault", err)
	}
	ra, _ := a.count("")
	rb, _ := b.count("")
	_, err = tp.step(t, context.Background(), 0)
	if !errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), "backing off") {
		t.Fatalf("error %v", err)
	}
	if ra2, _ := a.count(""); ra2 != ra {
		t.Errorf("a backing-off node was asked")
	}
	if rb2, _ := b.count(""); rb2 != rb {
		t.Errorf("a backing-off node was asked")
	}
}

func TestPoolWrongChainLater(t *testing.T) {
	a, b := newFakeNode(t, 1337, 10), newFakeNode(t, 1337, 10)
	tp := newTestPool(t, 0, a, b)
	ctx := context.Background()
	a.set(func(f *fakeNode) { f.fault = "500" })
	if used, err := tp.step(t, ctx, 0); err != nil || used != 1 {
		t.Fatalf("node %d, %v", used, err)
	}
	a.set(func(f *fakeNode) { f.fault, f.chainID = "", 5 }) // replaced by another chain's node
	for _, advance := range []time.Duration{time.Minute, 30 * time.Minute, 2 * time.Hour} {
		tp.clock.Add(advance)
		_, before := a.count("eth_chainId")
		if used, err := tp.step(t, ctx, 0); err != nil || used != 1 {
			t.Fatalf("node %d, %v", used, err)
		}
		_, after := a.count("eth_chainId")
		if asked := after > before; asked != (advance != 30*time.Minute) {
			t.Errorf("+%v: chain id asked %v", advance, asked)
		}
		if _, calls := a.count("eth_getBlockByNumber"); calls != 0 {
			t.Fatalf("the node on another chain was used")
		}
	}
	if log := tp.log.String(); !strings.Contains(log, "level=ERROR") || !strings.Contains(log, "chain_id=5") {
		t.Errorf("log:\n%s", log)
	}
}

func TestPoolContextEnds(t *testing.T) {
	a, b := newFakeNode(t, 1337, 10), newFakeNode(t, 1337, 10)
	tp := newTestPool(t, 0, a, b)
	if err := tp.Check(context.Background()); err != nil {
		t.Fatal(err)
	}
	a.set(func(f *fakeNode) { f.fault = "hang" })
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if _, err := tp.step(t, ctx, 0); !errors.Is(err, context.DeadlineExceeded) || errors.Is(err, ErrUnavailable) {
		t.Fatalf("error %v, want the caller's deadline", err)
	}
	a.set(func(f *fakeNode) { f.fault = "" })
	if used, err := tp.step(t, context.Background(), 0); err != nil || used != 0 {
		t.Fatalf("the caller's deadline backed node 0 off: node %d, %v", used, err)
	}
	if tp.Stats().Failovers != 0 {
		t.Errorf("failovers %d", tp.Stats().Failovers)
	}
}

func TestPoolConcurrent(t *testing.T) {
	nodes := []*fakeNode{newFakeNode(t, 1337, 10), newFakeNode(t, 1337, 10), newFakeNode(t, 1337, 10)}
	tp := newTestPool(t, time.Second, nodes...)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 30 {
				if g == 0 {
					nodes[i%3].set(func(f *fakeNode) { f.fault = []string{"", "500", "garbage"}[i%3] })
					tp.clock.Add(time.Second)
				}
				if _, err := tp.step(t, context.Background(), 0); err != nil && !errors.Is(err, ErrUnavailable) {
					t.Errorf("step: %v", err)
				}
			}
		})
	}
	wg.Wait()
}
