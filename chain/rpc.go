package chain

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"time"

	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/kassapay/kassa"
)

// DefaultTimeout bounds each JSON-RPC call (or batch) when no timeout is set.
const DefaultTimeout = 10 * time.Second

// MaxBatch is the most calls RPC puts in one JSON-RPC batch.
const MaxBatch = 100

// RPCOptions configure an RPC.
type RPCOptions struct {
	// Network names the chain in the Transfers returned (kassa.Transfer.Network).
	Network string
	// Timeout bounds each call, a batch being one call; 0 means DefaultTimeout.
	Timeout time.Duration
	// MaxBatch caps the calls per batch (Headers, Blocks); 0 or more than
	// MaxBatch means MaxBatch.
	MaxBatch int
	// HTTPClient is copied to carry the requests; nil means a default client.
	HTTPClient *http.Client
	// Metrics receives every call's outcome and duration, labelled with Network;
	// nil: none.
	Metrics Metrics
}

// RPC is a Node over one HTTP(S) JSON-RPC endpoint, with go-ethereum's rpc client.
// It checks every answer's shape: a malformed answer is an *EndpointError of kind
// FaultGarbage. It is safe for concurrent use.
type RPC struct {
	c        *rpc.Client
	url      string // redacted
	network  string
	timeout  time.Duration
	maxBatch int
	stats    *counters
	metrics  Metrics // nil: none
}

var _ Node = (*RPC)(nil)

// NewRPC returns an RPC for the endpoint rawURL (http or https). It does not
// connect: the first call does.
func NewRPC(rawURL string, opts RPCOptions) (*RPC, error) {
	u, err := url.Parse(rawURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("chain: endpoint %s: not an http(s) URL", Redact(rawURL))
	}
	r := &RPC{url: Redact(rawURL), network: opts.Network, timeout: opts.Timeout,
		maxBatch: opts.MaxBatch, stats: new(counters), metrics: opts.Metrics}
	if r.timeout <= 0 {
		r.timeout = DefaultTimeout
	}
	if r.maxBatch <= 0 || r.maxBatch > MaxBatch {
		r.maxBatch = MaxBatch
	}
	hc := new(http.Client)
	if opts.HTTPClient != nil {
		*hc = *opts.HTTPClient
	}
	next := hc.Transport
	if next == nil {
		next = http.DefaultTransport
	}
	hc.Transport = &countingTransport{next: next, stats: r.stats}
	r.c, err = rpc.DialOptions(context.Background(), rawURL, rpc.WithHTTPClient(hc))
	if err != nil {
		return nil, fmt.Errorf("chain: endpoint %s: %w", r.url, err)
	}
	return r, nil
}

// Endpoint is the endpoint's URL without credentials.
func (r *RPC) Endpoint() string { return r.url }

// Close releases the client's connections.
func (r *RPC) Close() { r.c.Close() }

// Stats returns the endpoint's traffic so far.
func (r *RPC) Stats() EndpointStats {
	return EndpointStats{Endpoint: r.url, Calls: r.stats.snapshot(),
		HTTPRequests: r.stats.http.Load(), Faults: r.stats.faults.Load()}
}

// call makes one JSON-RPC call within the timeout and classifies its error.
func (r *RPC) call(ctx context.Context, result any, method string, args ...any) error {
	cctx, ci, cancel := withCall(ctx, r.timeout)
	defer cancel()
	r.stats.add(method, 1)
	if r.metrics == nil {
		return r.count(r.classify(ctx, ci, method, r.c.CallContext(cctx, result, method, args...)))
	}
	start := time.Now()
	err := r.count(r.classify(ctx, ci, method, r.c.CallContext(cctx, result, method, args...)))
	r.observeCall(method, err, time.Since(start))
	return err
}

// batch sends b as one JSON-RPC batch within the timeout. Only the batch's own
// failure is returned; each element's answer error stays in its Error, raw.
func (r *RPC) batch(ctx context.Context, b []rpc.BatchElem) error {
	cctx, ci, cancel := withCall(ctx, r.timeout)
	defer cancel()
	for _, e := range b {
		r.stats.add(e.Method, 1)
	}
	if r.metrics == nil {
		return r.count(r.classify(ctx, ci, b[0].Method, r.c.BatchCallContext(cctx, b)))
	}
	start := time.Now()
	err := r.count(r.classify(ctx, ci, b[0].Method, r.c.BatchCallContext(cctx, b)))
	r.observeBatch(ctx, b, err, time.Since(start))
	return err
}

// count counts err if it is an endpoint fault, and returns it.
func (r *RPC) count(err error) error {
	if IsEndpointFault(err) {
		r.stats.faults.Add(1)
	}
	return err
}

// garbage is the fault of an answer that is not what was asked.
func (r *RPC) garbage(method, format string, args ...any) error {
	return r.count(&EndpointError{Endpoint: r.url, Method: method, Kind: FaultGarbage,
		Err: fmt.Errorf(format, args...)})
}

// ChainID returns the chain's EIP-155 id (eth_chainId).
func (r *RPC) ChainID(ctx context.Context) (int64, error) {
	var id *hexutil.Big
	if err := r.call(ctx, &id, "eth_chainId"); err != nil {
		return 0, err
	}
	if id == nil || id.ToInt().Sign() <= 0 || !id.ToInt().IsInt64() {
		return 0, r.garbage("eth_chainId", "chain id %v", id)
	}
	return id.ToInt().Int64(), nil
}

// Head returns the latest block.
func (r *RPC) Head(ctx context.Context) (kassa.BlockRef, error) {
	var h *rpcHeader
	if err := r.call(ctx, &h, "eth_getBlockByNumber", "latest", false); err != nil {
		return kassa.BlockRef{}, err
	}
	if h == nil {
		return kassa.BlockRef{}, r.garbage("eth_getBlockByNumber", "no latest block")
	}
	ref, err := h.ref(nil)
	if err != nil {
		return kassa.BlockRef{}, r.garbage("eth_getBlockByNumber", "latest: %v", err)
	}
	return ref, nil
}

// Headers returns the blocks from..to in batches of at most MaxBatch calls,
// stopping at the first block the node does not have. Consecutive blocks are not
// checked against each other (a reorganisation may fall between two answers):
// that is the caller's job.
func (r *RPC) Headers(ctx context.Context, from, to uint64) ([]kassa.BlockRef, error) {
	var refs []kassa.BlockRef
	err := r.blocks(ctx, from, to, false, func(b *rpcBlock) error {
		refs = append(refs, b.checked)
		return nil
	})
	return refs, err
}

// Blocks returns the blocks from..to with their transactions, as Headers does.
func (r *RPC) Blocks(ctx context.Context, from, to uint64) ([]Block, error) {
	var blocks []Block
	err := r.blocks(ctx, from, to, true, func(b *rpcBlock) error {
		txs, err := b.txs()
		if err != nil {
			return r.garbage("eth_getBlockByNumber", "block %d: %v", b.checked.Number, err)
		}
		blocks = append(blocks, Block{BlockRef: b.checked, Txs: txs})
		return nil
	})
	return blocks, err
}

// blocks fetches from..to in batches and hands each checked block to fn, until the
// first null block.
func (r *RPC) blocks(ctx context.Context, from, to uint64, full bool, fn func(*rpcBlock) error) error {
	for start := from; start <= to && start >= from; start += uint64(r.maxBatch) {
		end := to
		if to-start >= uint64(r.maxBatch) {
			end = start + uint64(r.maxBatch) - 1
		}
		b := make([]rpc.BatchElem, 0, end-start+1)
		res := make([]*rpcBlock, end-start+1)
		for n := start; n <= end; n++ {
			b = append(b, rpc.BatchElem{Method: "eth_getBlockByNumber",
				Args: []any{hexutil.Uint64(n), full}, Result: &res[n-start]})
		}
		if err := r.batch(ctx, b); err != nil {
			return err
		}
		for i, e := range b {
			n := start + uint64(i)
			if e.Error != nil {
				return r.count(r.classify(ctx, nil, e.Method, e.Error))
			}
			if res[i] == nil {
				return nil // the node does not have n yet
			}
			ref, err := res[i].ref(&n)
			if err != nil {
				return r.garbage(e.Method, "block %d: %v", n, err)
			}
			res[i].checked = ref
			if err := fn(res[i]); err != nil {
				return err
			}
		}
		if end == to {
			break
		}
	}
	return nil
}
