package chain

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

// newTestRPC is an RPC on f's server.
func newTestRPC(t *testing.T, f *fakeNode, timeout time.Duration) *RPC {
	t.Helper()
	r, err := NewRPC(f.srv.URL, RPCOptions{Network: "devchain", Timeout: timeout})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.Close)
	return r
}

// wantFault checks that err is an endpoint fault of kind.
func wantFault(t *testing.T, err error, kind string) *EndpointError {
	t.Helper()
	var ee *EndpointError
	if !errors.As(err, &ee) {
		t.Fatalf("error %v (%T), want an endpoint fault %q", err, err, kind)
	}
	if ee.Kind != kind {
		t.Fatalf("fault %q (%v), want %q", ee.Kind, err, kind)
	}
	return ee
}

func TestRPCHeaders(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name         string
		from, to     uint64
		wantN        int
		wantRequests int
		wantCalls    int64
	}{
		{"three batches", 1, 250, 250, 3, 250},
		{"one batch", 0, 99, 100, 1, 100},
		{"stops at the head", 240, 300, 11, 1, 61},
		{"stops at the head, no later batch", 1, 350, 250, 3, 300},
		{"above the head", 251, 260, 0, 1, 10},
		{"empty range", 5, 4, 0, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFakeNode(t, 1337, 250)
			r := newTestRPC(t, f, 0)
			refs, err := r.Headers(ctx, tt.from, tt.to)
			if err != nil {
				t.Fatal(err)
			}
			if len(refs) != tt.wantN {
				t.Fatalf("%d headers, want %d", len(refs), tt.wantN)
			}
			for i, b := range refs {
				if b.Number != tt.from+uint64(i) || b.Hash != fakeHash(b.Number) || (i > 0 && b.Parent != refs[i-1].Hash) {
					t.Fatalf("header %d: %+v", i, b)
				}
			}
			requests, _ := f.count("")
			st := r.Stats()
			if requests != tt.wantRequests || st.HTTPRequests != int64(tt.wantRequests) {
				t.Errorf("HTTP requests: server saw %d, stats %d, want %d", requests, st.HTTPRequests, tt.wantRequests)
			}
			if st.Calls["eth_getBlockByNumber"] != tt.wantCalls {
				t.Errorf("calls %v, want %d eth_getBlockByNumber", st.Calls, tt.wantCalls)
			}
		})
	}
}

func TestRPCBlocks(t *testing.T) {
	f := newFakeNode(t, 1337, 10)
	blocks, err := newTestRPC(t, f, 0).Blocks(context.Background(), 3, 4)
	if err != nil {
		t.Fatal(err)
	}
	if len(blocks) != 2 || len(blocks[0].Txs) != 2 {
		t.Fatalf("blocks %+v", blocks)
	}
	tx, creation := blocks[0].Txs[0], blocks[0].Txs[1]
	if tx.From != fakeAddr(1) || tx.To != fakeAddr(2) || tx.Value.String() != "1000000000000000000" ||
		tx.Block != blocks[0].BlockRef || !tx.Succeeded || creation.To != "" {
		t.Fatalf("txs %+v", blocks[0].Txs)
	}
}

// TestRPCFaults checks how each failure is classified: endpoint faults (Step fails
// over) and answers (it does not).
func TestRPCFaults(t *testing.T) {
	tests := []struct {
		fault, retry string
		call         func(ctx context.Context, r *RPC) error
		kind         string // "" : not an endpoint fault
		retryAfter   time.Duration
	}{
		{fault: "500", kind: FaultHTTP},
		{fault: "429", retry: "7", kind: FaultRateLimit, retryAfter: 7 * time.Second},
		{fault: "429", kind: FaultRateLimit},
		{fault: "hang", kind: FaultTimeout},
		{fault: "garbage", kind: FaultGarbage},
		{fault: "shortHash", kind: FaultGarbage},
		{fault: "wrongNumber", kind: FaultGarbage, call: func(ctx context.Context, r *RPC) error {
			_, err := r.Headers(ctx, 1, 3)
			return err
		}},
		{fault: "reverted", kind: ""},
		{fault: "400json", kind: ""},
		{fault: "reverted", kind: "", call: func(ctx context.Context, r *RPC) error {
			_, err := r.Headers(ctx, 1, 3)
			return err
		}},
	}
	for _, tt := range tests {
		t.Run(tt.fault+"/"+tt.retry, func(t *testing.T) {
			f := newFakeNode(t, 1337, 10)
			f.set(func(f *fakeNode) { f.fault, f.retryAfter = tt.fault, tt.retry })
			r := newTestRPC(t, f, 200*time.Millisecond)
			call := tt.call
			if call == nil {
				call = func(ctx context.Context, r *RPC) error { _, err := r.Head(ctx); return err }
			}
			err := call(context.Background(), r)
			if err == nil {
				t.Fatal("no error")
			}
			if tt.kind == "" {
				if IsEndpointFault(err) || !strings.Contains(err.Error(), map[string]string{
					"reverted": "execution reverted", "400json": "invalid block range params"}[tt.fault]) {
					t.Fatalf("error %v, want the answer, not a fault", err)
				}
				return
			}
			if ee := wantFault(t, err, tt.kind); ee.RetryAfter != tt.retryAfter {
				t.Errorf("Retry-After %v, want %v", ee.RetryAfter, tt.retryAfter)
			}
			if r.Stats().Faults != 1 {
				t.Errorf("faults %d, want 1", r.Stats().Faults)
			}
		})
	}
}

func TestRPCUnreachableAndCanceled(t *testing.T) {
	f := newFakeNode(t, 1337, 10)
	r := newTestRPC(t, f, 0)
	f.srv.Close()
	_, err := r.ChainID(context.Background())
	wantFault(t, err, FaultTransport)

	g := newFakeNode(t, 1337, 10)
	g.set(func(f *fakeNode) { f.fault = "hang" })
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := newTestRPC(t, g, 0).Head(ctx); !errors.Is(err, context.Canceled) || IsEndpointFault(err) {
		t.Fatalf("error %v, want the caller's context.Canceled", err)
	}
}

func TestRedact(t *testing.T) {
	tests := []struct{ in, want string }{
		{"https://user:pass@mainnet.example.com/v3/SECRETKEY?apikey=SECRET#x", "https://mainnet.example.com/…"},
		{"http://127.0.0.1:8545", "http://127.0.0.1:8545"},
		{"http://127.0.0.1:8545/", "http://127.0.0.1:8545"},
		{"::bad", "(unparsable url)"},
	}
	for _, tt := range tests {
		if got := Redact(tt.in); got != tt.want {
			t.Errorf("Redact(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	if _, err := NewRPC("ws://user:SECRET@host/x", RPCOptions{}); err == nil || strings.Contains(err.Error(), "SECRET") {
		t.Errorf("NewRPC(ws) error %v", err)
	}
}
