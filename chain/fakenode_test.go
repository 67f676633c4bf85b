package chain

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// fakeNode is a loopback JSON-RPC node over a made-up chain whose block n has hash
// fakeHash(n), with canned logs and transactions, and faults to inject.
type fakeNode struct {
	srv *httptest.Server

	mu         sync.Mutex
	chainID    int64
	head       uint64
	logs       []fakeLog
	txs        map[string]fakeTx // by hash
	maxRange   uint64            // eth_getLogs over more blocks answers rangeMsg
	rangeMsg   string
	fault      string // "", "500", "429", "hang", "garbage", "wrongNumber", "shortHash", "reverted", "unfiltered", "tooLarge", "400json"
	retryAfter string
	requests   int            // HTTP requests
	calls      map[string]int // JSON-RPC calls per method
	ranges     [][2]uint64    // eth_getLogs ranges asked, in order
}

// fakeLog is a log of the fake chain; Topics and Data override the Transfer shape.
type fakeLog struct {
	Token, From, To string
	Amount          int64
	Block, Index    uint64
	Removed         bool
	Topics          []string
	Data            string
	BlockHash       string // overrides fakeHash(Block)
}

// fakeTx is a mined (Block > 0) or pending transaction and its receipt's logs.
type fakeTx struct {
	Block  uint64
	Status uint64
	Logs   []fakeLog
}

func newFakeNode(t testing.TB, chainID int64, head uint64) *fakeNode {
	t.Helper()
	f := &fakeNode{chainID: chainID, head: head, calls: map[string]int{}, txs: map[string]fakeTx{},
		rangeMsg: "query returned more than 10000 results"}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

func fakeHash(n uint64) string { return fmt.Sprintf("0x%064x", 0xb10c<<32+n) }
func fakeAddr(n int) string    { return fmt.Sprintf("0x%040x", 0xadd<<32+n) }
func pad(a string) string      { return "0x" + strings.Repeat("0", 24) + strings.TrimPrefix(a, "0x") }

// set changes the node's state under its lock.
func (f *fakeNode) set(fn func(f *fakeNode)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	fn(f)
}

// count returns the node's HTTP requests and calls of method.
func (f *fakeNode) count(method string) (requests, calls int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.requests, f.calls[method]
}

type fakeReq struct {
	ID     json.RawMessage   `json:"id"`
	Method string            `json:"method"`
	Params []json.RawMessage `json:"params"`
}

func (f *fakeNode) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	f.mu.Lock()
	f.requests++
	fault, retry := f.fault, f.retryAfter
	f.mu.Unlock()
	switch fault {
	case "500":
		http.Error(w, "bad gateway upstream", http.StatusInternalServerError)
		return
	case "429":
		if retry != "" {
			w.Header().Set("Retry-After", retry)
		}
		http.Error(w, "slow down", http.StatusTooManyRequests)
		return
	case "hang":
		<-r.Context().Done()
		return
	case "400json":
		w.WriteHeader(http.StatusBadRequest)
		w.Write([]byte(`{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"invalid block range params"}}`))
		return
	case "garbage":
		w.Write([]byte(`{"jsonrpc":"2.0","id":1,"result":<html>`))
		return
	}
	batch := bytes.HasPrefix(bytes.TrimSpace(body), []byte("["))
	var reqs []fakeReq
	if !batch {
		reqs = make([]fakeReq, 1)
		json.Unmarshal(body, &reqs[0])
	} else {
		json.Unmarshal(body, &reqs)
	}
	var out []map[string]any
	for _, q := range reqs {
		res, msg := f.answer(q.Method, q.Params)
		m := map[string]any{"jsonrpc": "2.0", "id": q.ID}
		if msg != "" {
			m["error"] = map[string]any{"code": -32005, "message": msg}
		} else {
			m["result"] = res
		}
		out = append(out, m)
	}
	w.Header().Set("Content-Type", "application/json")
	if batch {
		json.NewEncoder(w).Encode(out)
	} else {
		json.NewEncoder(w).Encode(out[0])
	}
}

// answer is one call's result, or its error message.
func (f *fakeNode) answer(method string, params []json.RawMessage) (any, string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls[method]++
	if f.fault == "reverted" {
		return nil, "execution reverted"
	}
	str := func(i int) string {
		var s string
		if i < len(params) {
			json.Unmarshal(params[i], &s)
		}
		return s
	}
	switch method {
	case "eth_chainId":
		return fmt.Sprintf("0x%x", f.chainID), ""
	case "eth_getBlockByNumber":
		n := f.head
		if tag := str(0); tag != "latest" {
			n, _ = strconv.ParseUint(strings.TrimPrefix(tag, "0x"), 16, 64)
		}
		if n > f.head {
			return nil, ""
		}
		return f.block(n, string(params[1]) == "true"), ""
	case "eth_getLogs":
		return f.getLogs(params[0])
	case "eth_getTransactionByHash", "eth_getTransactionReceipt":
		return f.tx(method, str(0)), ""
	}
	return nil, "the method " + method + " does not exist/is not available"
}

func (f *fakeNode) block(n uint64, full bool) map[string]any {
	number, hash := fmt.Sprintf("0x%x", n), fakeHash(n)
	switch f.fault {
	case "wrongNumber":
		number = fmt.Sprintf("0x%x", n+1)
	case "shortHash":
		hash = hash[:64]
	}
	b := map[string]any{"number": number, "hash": hash, "parentHash": fakeHash(n - 1),
		"transactions": []string{fmt.Sprintf("0x%064x", 0x7e<<32+n)}}
	if n == 0 {
		b["parentHash"] = fmt.Sprintf("0x%064x", 0)
	}
	if full {
		b["transactions"] = []any{
			map[string]any{"hash": fmt.Sprintf("0x%064x", 0x7e<<32+n), "from": fakeAddr(1), "to": fakeAddr(2),
				"value": "0xde0b6b3a7640000", "blockHash": fakeHash(n), "blockNumber": fmt.Sprintf("0x%x", n)},
			map[string]any{"hash": fmt.Sprintf("0x%064x", 0x7f<<32+n), "from": fakeAddr(1), "to": nil,
				"value": "0x0", "blockHash": fakeHash(n), "blockNumber": fmt.Sprintf("0x%x", n)},
		}
	}
	return b
}
