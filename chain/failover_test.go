package chain_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/chain"
	"github.com/kassapay/kassa/devchain"
	"github.com/kassapay/kassa/store"
	"github.com/kassapay/kassa/store/storetest"
)

// faultyProxy forwards JSON-RPC to the dev chain on loopback, and fails the way
// its mode says: HTTP 500, 429 with Retry-After, a hang past the client's timeout,
// or a head lagging 5 blocks behind.
type faultyProxy struct {
	srv      *httptest.Server
	upstream string
	mu       sync.Mutex
	mode     string
	served   map[string]int
}

func newFaultyProxy(t *testing.T, upstream string) *faultyProxy {
	t.Helper()
	p := &faultyProxy{upstream: upstream, served: map[string]int{}}
	p.srv = httptest.NewServer(http.HandlerFunc(p.serve))
	t.Cleanup(p.srv.Close)
	return p
}

func (p *faultyProxy) set(mode string) {
	p.mu.Lock()
	p.mode = mode
	p.mu.Unlock()
}

func (p *faultyProxy) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	p.mu.Lock()
	mode := p.mode
	p.served[mode]++
	p.mu.Unlock()
	switch mode {
	case "500":
		http.Error(w, "upstream exploded", http.StatusInternalServerError)
		return
	case "429":
		w.Header().Set("Retry-After", "1")
		http.Error(w, "slow down", http.StatusTooManyRequests)
		return
	case "hang":
		select {
		case <-r.Context().Done():
		case <-time.After(5 * time.Second):
		}
		return
	case "lag":
		body = p.lagging(body)
	}
	resp, err := http.Post(p.upstream, "application/json", bytes.NewReader(body))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(resp.StatusCode)
	io.Copy(w, resp.Body)
}

// lagging rewrites a request for the latest block into one for the block five
// below it: the answer of a node that fell behind.
func (p *faultyProxy) lagging(body []byte) []byte {
	var req struct {
		JSONRPC string `json:"jsonrpc"`
		ID      any    `json:"id"`
		Method  string `json:"method"`
		Params  []any  `json:"params"`
	}
	if json.Unmarshal(body, &req) != nil || req.Method != "eth_getBlockByNumber" || len(req.Params) == 0 || req.Params[0] != "latest" {
		return body
	}
	resp, err := http.Post(p.upstream, "application/json", bytes.NewReader([]byte(`{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber","params":[]}`)))
	if err != nil {
		return body
	}
	defer resp.Body.Close()
	var head struct{ Result string }
	if json.NewDecoder(resp.Body).Decode(&head) != nil {
		return body
	}
	var n uint64
	fmt.Sscanf(head.Result, "0x%x", &n)
	req.Params[0] = fmt.Sprintf("0x%x", n-min(n, 5))
	out, _ := json.Marshal(req)
	return out
}

// TestFailoverOnTheDevChain: the watcher's pool has a faulty endpoint first and
// a good one second. Whatever the first does (500s, 429s, hangs, a lagging head),
// every payment is found once and nothing is credited that is not on the chain.
func TestFailoverOnTheDevChain(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		f, d := onDevChain(t, cfg)
		faulty, good := newFaultyProxy(t, d.URL()), newFaultyProxy(t, d.URL())
		usdtAddr := f.tokenAddress(t, usdt)
		for range 6 {
			d.Mine()
		}
		for _, mode := range []string{"500", "429", "hang", "lag"} {
			// A fresh pool per fault, so each one meets a healthy faulty endpoint.
			faulty.set("")
			pool, err := chain.NewPool("devchain", devchain.ChainID, []string{faulty.srv.URL, good.srv.URL},
				chain.PoolOptions{Timeout: 300 * time.Millisecond, BackoffBase: 50 * time.Millisecond})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(pool.Close)
			if err := pool.Check(f.ctx); err != nil {
				t.Fatal(err)
			}
			f.w.Nodes = pool
			f.sync(t)
			faulty.set(mode)
			inv, addr := f.invoice(t, 10_000, usdt)
			d.send(t, 0, usdtAddr, addr, dollars(10))
			d.Mine()
			d.Mine()
			for end := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
				f.w.Round(f.ctx, time.Minute) // a round may fail while every endpoint backs off
				if st, _ := f.state(t, inv); st == kassa.StatusPaid || time.Now().After(end) {
					break
				}
			}
			f.statuses(t, inv, kassa.StatusPaid, kassa.PaymentConfirmed)
			faulty.mu.Lock()
			if faulty.served[mode] == 0 {
				t.Errorf("mode %s: the faulty endpoint was never asked", mode)
			}
			faulty.mu.Unlock()
			if s := pool.Stats(); s.Failovers == 0 {
				t.Errorf("mode %s: no failover counted: %+v", mode, s)
			}
		}
	})
}
