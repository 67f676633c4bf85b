package chain

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"
)

// testClock is a settable clock for backoffs.
type testClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *testClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *testClock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// syncBuffer collects the pool's log.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// testPool is a pool over fake nodes, reached through URLs carrying secrets.
type testPool struct {
	*Pool
	clock *testClock
	log   *syncBuffer
	nodes []*fakeNode
}

func newTestPool(t *testing.T, timeout time.Duration, nodes ...*fakeNode) *testPool {
	t.Helper()
	tp := &testPool{clock: &testClock{t: time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC)}, log: new(syncBuffer), nodes: nodes}
	var urls []string
	for _, f := range nodes {
		urls = append(urls, strings.Replace(f.srv.URL, "http://", "http://user:SECRETPASS@", 1)+"/v3/SECRETKEY?apikey=SECRET")
	}
	logger := slog.New(slog.NewTextHandler(tp.log, &slog.HandlerOptions{Level: slog.LevelDebug}))
	p, err := NewPool("devchain", 1337, urls, PoolOptions{Timeout: timeout, Logger: logger, Now: tp.clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	tp.Pool = p
	t.Cleanup(func() {
		p.Close()
		if strings.Contains(tp.log.String(), "SECRET") {
			t.Errorf("the log shows a credential:\n%s", tp.log)
		}
	})
	return tp
}

// step runs one watcher-like step: the head, lagging if below minHead, and the
// three blocks below it. It returns the index of the node used.
func (tp *testPool) step(t *testing.T, ctx context.Context, minHead uint64) (int, error) {
	t.Helper()
	used := -1
	err := tp.Step(ctx, func(n Node) error {
		for i, f := range tp.nodes {
			if Redact(f.srv.URL+"/x") == n.(*RPC).Endpoint() {
				used = i
			}
		}
		h, err := n.Head(ctx)
		if err != nil {
			return err
		}
		if h.Number < minHead {
			return errors.Join(ErrLagging, errors.New("head below the known chain"))
		}
		_, err = n.Headers(ctx, h.Number-2, h.Number)
		return err
	})
	if err != nil && strings.Contains(err.Error(), "SECRET") {
		t.Errorf("error shows a credential: %v", err)
	}
	return used, err
}

func TestNewPool(t *testing.T) {
	tests := []struct {
		name string
		id   int64
		urls []string
	}{
		{"no endpoint", 1, nil},
		{"no chain id", 0, []string{"http://127.0.0.1:1"}},
		{"not http", 1, []string{"http://127.0.0.1:1", "wss://u:SECRET@host/SECRET"}},
	}
	for _, tt := range tests {
		if _, err := NewPool("devchain", tt.id, tt.urls, PoolOptions{}); err == nil || strings.Contains(err.Error(), "SECRET") {
			t.Errorf("%s: error %v", tt.name, err)
		}
	}
}

func TestPoolCheck(t *testing.T) {
	tests := []struct {
		name    string
		ids     []int64
		hang    int // a node that does not answer, -1: none
		wantErr string
	}{
		{"all right", []int64{1337, 1337}, -1, ""},
		{"one on another chain", []int64{1337, 5}, -1, `chain: network "devchain": endpoint http://127.0.0.1:`},
		{"one unreachable", []int64{1337, 1337}, 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var nodes []*fakeNode
			for i, id := range tt.ids {
				f := newFakeNode(t, id, 10)
				if i == tt.hang {
					f.set(func(f *fakeNode) { f.fault = "hang" })
				}
				nodes = append(nodes, f)
			}
			tp := newTestPool(t, 200*time.Millisecond, nodes...)
			err := tp.Check(context.Background())
			if tt.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
			} else {
				var ce *ChainIDError
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !strings.HasSuffix(err.Error(), "answers chain id 5, want 1337") ||
					!errors.As(err, &ce) || ce.Got != 5 || ce.Want != 1337 {
					t.Fatalf("error %v, want %q… answers chain id 5, want 1337", err, tt.wantErr)
				}
				return
			}
			if tt.hang < 0 {
				return
			}
			// The unreachable node is asked its chain id again before it is used.
			nodes[tt.hang].set(func(f *fakeNode) { f.fault = "" })
			if used, err := tp.step(t, context.Background(), 0); err != nil || used != 1 {
				t.Fatalf("during its backoff: node %d, %v", used, err)
			}
			tp.clock.Add(time.Minute)
			if used, err := tp.step(t, context.Background(), 0); err != nil || used != 0 {
				t.Fatalf("after its backoff: node %d, %v", used, err)
			}
			// Requests: Check's (hung), then eth_chainId, the head and the headers.
			if requests, calls := nodes[0].count("eth_chainId"); requests != 4 || calls != 1 {
				t.Errorf("%d requests, %d eth_chainId answered; want 4, 1", requests, calls)
			}
			if !strings.Contains(tp.log.String(), "timeout") {
				t.Errorf("log:\n%s", tp.log)
			}
		})
	}
}

func TestPoolConfirmsBeforeUse(t *testing.T) {
	f := newFakeNode(t, 1337, 250)
	tp := newTestPool(t, 0, f)
	err := tp.Step(context.Background(), func(n Node) error {
		if _, calls := f.count("eth_chainId"); calls != 1 {
			t.Errorf("the node was used before its chain id was confirmed")
		}
		_, err := n.Headers(context.Background(), 1, 250)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	s := tp.Stats()
	if s.Calls["eth_getBlockByNumber"] != 250 || s.Calls["eth_chainId"] != 1 || s.HTTPRequests != 4 || s.Total() != 251 ||
		len(s.Endpoints) != 1 || s.Endpoints[0].Endpoint != Redact(f.srv.URL+"/v3/x") || tp.Calls()["eth_chainId"] != 1 {
		t.Errorf("stats %+v", s)
	}
}
