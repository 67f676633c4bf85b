package worker

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

// outcome is what one scripted round does.
type outcome struct {
	more   bool
	err    error
	cancel bool // end the loop's context during the round
}

// harness runs a Loop over a scripted Round and watches it.
type harness struct {
	t        *testing.T
	wake     chan struct{}
	rounds   chan int // each round's number, as it runs
	cancel   context.CancelFunc
	done     chan struct{}
	log      lockedBuffer
	mu       sync.Mutex
	n        int
	outcomes []outcome
}

// start runs a Loop of interval over rounds that follow outcomes (then report
// nothing more and no error). A signal already queued on wake is one that came
// during the first round.
func start(t *testing.T, interval, settle time.Duration, outcomes []outcome, queuedWake bool) *harness {
	t.Helper()
	h := &harness{t: t, wake: make(chan struct{}, 1), rounds: make(chan int, 1000), done: make(chan struct{}), outcomes: outcomes}
	if queuedWake {
		h.wake <- struct{}{}
	}
	ctx, cancel := context.WithCancel(t.Context())
	h.cancel = cancel
	l := Loop{Name: "test job", Interval: interval, Settle: settle, Wake: h.wake, Log: slog.New(slog.NewTextHandler(&h.log, nil))}
	go func() {
		defer close(h.done)
		l.Run(ctx, h.round)
	}()
	t.Cleanup(func() { cancel(); <-h.done })
	return h
}

func (h *harness) round(ctx context.Context) (bool, error) {
	h.mu.Lock()
	i := h.n
	h.n++
	var o outcome
	if i < len(h.outcomes) {
		o = h.outcomes[i]
	}
	h.mu.Unlock()
	if o.cancel {
		h.cancel()
	}
	select {
	case h.rounds <- i:
	default:
	}
	return o.more, o.err
}

// lockedBuffer is a log the loop writes while the test reads.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// waitLogged checks that the loop logged a line holding s once every goroutine
// of the test's bubble is blocked: it logs after the round returns.
func (h *harness) waitLogged(s string) {
	h.t.Helper()
	synctest.Wait()
	if !strings.Contains(h.log.String(), s) {
		h.t.Fatalf("the loop never logged %q", s)
	}
}

// waitRounds waits until n rounds have started.
func (h *harness) waitRounds(n int) {
	h.t.Helper()
	deadline := time.After(10 * time.Second)
	for got := 0; got < n; got++ {
		select {
		case <-h.rounds:
		case <-deadline:
			h.t.Fatalf("%d rounds ran, want %d", got, n)
		}
	}
}

// ran is how many rounds have started.
func (h *harness) ran() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.n
}

// stop ends the loop, waits for Run to return and gives the rounds it ran and
// what it logged.
func (h *harness) stop() (int, string) {
	h.t.Helper()
	h.cancel()
	select {
	case <-h.done:
	case <-time.After(10 * time.Second):
		h.t.Fatal("Run did not return after its context ended")
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.n, h.log.String()
}

func TestLoop(t *testing.T) {
	failed := errors.New("database is down")
	tests := []struct {
		name       string
		interval   time.Duration
		settle     time.Duration
		outcomes   []outcome
		queuedWake bool
		steps      func(h *harness)
		wantRounds int    // exactly: the test's clock is synctest's, so no interval ends by itself
		wantLog    string // "" wants nothing logged
	}{
		{name: "runs at once", interval: time.Hour,
			steps: func(h *harness) { h.waitRounds(1) }, wantRounds: 1},
		{name: "repeats while there is more", interval: time.Hour,
			outcomes: []outcome{{more: true}, {more: true}, {more: true}},
			steps:    func(h *harness) { h.waitRounds(4) }, wantRounds: 4},
		{name: "a failed round pauses and is logged", interval: time.Hour,
			outcomes: []outcome{{more: true, err: failed}},
			steps:    func(h *harness) { h.waitRounds(1); h.waitLogged("test job failed") }, wantRounds: 1,
			wantLog: `msg="test job failed" err="database is down"`},
		{name: "wake runs a round", interval: time.Hour,
			steps: func(h *harness) {
				h.waitRounds(1)
				h.wake <- struct{}{}
				h.waitRounds(1)
			}, wantRounds: 2},
		{name: "a wake during a round runs another", interval: time.Hour, queuedWake: true,
			steps: func(h *harness) { h.waitRounds(2) }, wantRounds: 2},
		{name: "a woken round settles first and covers the wakes meanwhile", interval: time.Hour, settle: 500 * time.Millisecond,
			steps: func(h *harness) {
				h.waitRounds(1)
				h.wake <- struct{}{}
				synctest.Wait()
				h.wake <- struct{}{} // taken while the first settles
				time.Sleep(499 * time.Millisecond)
				synctest.Wait()
				if n := h.ran(); n != 1 {
					h.t.Fatalf("%d rounds before the settle ended, want 1", n)
				}
				h.waitRounds(1)
			}, wantRounds: 2},
		{name: "stops when its context ends while settling", interval: time.Hour, settle: time.Hour,
			steps: func(h *harness) {
				h.waitRounds(1)
				h.wake <- struct{}{}
			}, wantRounds: 1},
		{name: "runs after each interval", interval: time.Minute,
			steps: func(h *harness) {
				h.waitRounds(1)
				time.Sleep(2*time.Minute + time.Second)
				h.waitRounds(2)
			}, wantRounds: 3},
		{name: "a round with more left over runs again at once, not after the interval", interval: time.Minute,
			outcomes: []outcome{{more: true}},
			steps: func(h *harness) {
				h.waitRounds(2)
				time.Sleep(59 * time.Second)
			}, wantRounds: 2},
		{name: "stops when its context ends in a round", interval: time.Hour,
			outcomes: []outcome{{more: true, err: failed, cancel: true}},
			steps:    func(h *harness) { h.waitRounds(1) }, wantRounds: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				h := start(t, tt.interval, tt.settle, tt.outcomes, tt.queuedWake)
				tt.steps(h)
				synctest.Wait()
				n, logged := h.stop()
				if n != tt.wantRounds {
					t.Errorf("%d rounds, want %d", n, tt.wantRounds)
				}
				if (tt.wantLog == "") != (logged == "") || !strings.Contains(logged, tt.wantLog) {
					t.Errorf("logged %q, want %q", logged, tt.wantLog)
				}
			})
		})
	}
}

func TestLoopWithoutInterval(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("Run with a zero Interval did not panic")
		}
	}()
	Loop{Name: "test job"}.Run(t.Context(), func(context.Context) (bool, error) { return false, nil })
}
