package chain

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

// PoolOptions configure a Pool; zero values mean the defaults.
type PoolOptions struct {
	Timeout           time.Duration    // per call; DefaultTimeout
	MaxBatch          int              // calls per batch; MaxBatch
	HTTPClient        *http.Client     // nil: a default client
	BackoffBase       time.Duration    // first backoff of a faulty endpoint; 500 ms
	BackoffMax        time.Duration    // longest backoff (Retry-After may ask more); 30 s
	WrongChainBackoff time.Duration    // how long an endpoint on another chain is left out; 1 h
	Logger            *slog.Logger     // nil: discard
	Now               func() time.Time // the clock of backoffs; time.Now
	Metrics           Metrics          // every endpoint's calls and the failovers; nil: none
}

// maxRetryAfter caps how long a 429's Retry-After keeps an endpoint out.
const maxRetryAfter = 10 * time.Minute

// Pool is the JSON-RPC endpoints of one network, in order of preference. Each step
// runs against the first healthy endpoint whose chain id was confirmed; a faulty
// one is backed off (jittered exponential) and the step tried on the next. Safe
// for concurrent use.
type Pool struct {
	network   string
	chainID   int64
	opts      PoolOptions
	log       *slog.Logger
	eps       []*endpoint
	failovers atomic.Int64

	mu sync.Mutex // guards the endpoints' state
}

// endpoint is one RPC and its health, guarded by Pool.mu.
type endpoint struct {
	idx       int
	rpc       *RPC
	confirmed bool // its chain id was checked since its last fault
	failures  int  // consecutive faults
	until     time.Time
	lastErr   error
}

// ChainIDError is an endpoint answering another chain id than its network's.
type ChainIDError struct {
	Network, Endpoint string
	Got, Want         int64
}

func (e *ChainIDError) Error() string {
	return fmt.Sprintf("chain: network %q: endpoint %s answers chain id %d, want %d", e.Network, e.Endpoint, e.Got, e.Want)
}

// NewPool returns the pool of network's endpoints urls (http or https, in order of
// preference) for chain id chainID. It does not connect: see Check.
func NewPool(network string, chainID int64, urls []string, opts PoolOptions) (*Pool, error) {
	if len(urls) == 0 {
		return nil, fmt.Errorf("chain: network %q: no RPC endpoint", network)
	}
	if chainID <= 0 {
		return nil, fmt.Errorf("chain: network %q: chain id %d", network, chainID)
	}
	if opts.BackoffBase <= 0 {
		opts.BackoffBase = 500 * time.Millisecond
	}
	if opts.BackoffMax <= 0 {
		opts.BackoffMax = 30 * time.Second
	}
	if opts.WrongChainBackoff <= 0 {
		opts.WrongChainBackoff = time.Hour
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	p := &Pool{network: network, chainID: chainID, opts: opts, log: log.With("network", network)}
	for i, u := range urls {
		r, err := NewRPC(u, RPCOptions{Network: network, Timeout: opts.Timeout, MaxBatch: opts.MaxBatch, HTTPClient: opts.HTTPClient,
			Metrics: opts.Metrics})
		if err != nil {
			p.Close()
			return nil, fmt.Errorf("chain: network %q: %w", network, err)
		}
		p.eps = append(p.eps, &endpoint{idx: i, rpc: r})
	}
	return p, nil
}

// Network is the pool's network name.
func (p *Pool) Network() string { return p.network }

// Close releases the endpoints' connections.
func (p *Pool) Close() {
	for _, e := range p.eps {
		e.rpc.Close()
	}
}

// Check asks every endpoint its chain id, concurrently. An endpoint on another
// chain makes Check fail with a *ChainIDError naming the network and both ids (the
// process should not start); one that cannot be reached is only logged: it is
// checked again before its first use.
func (p *Pool) Check(ctx context.Context) error {
	errs := make([]error, len(p.eps))
	var wg sync.WaitGroup
	for _, e := range p.eps {
		wg.Go(func() {
			err := p.confirm(ctx, e)
			switch {
			case err == nil || ctx.Err() != nil:
			case IsEndpointFault(err):
				p.log.Warn("chain: RPC endpoint unreachable at start; its chain id is checked before its first use",
					"endpoint", e.rpc.url, "err", err)
			default:
				errs[e.idx] = err
			}
		})
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return err
	}
	return errors.Join(errs...)
}

// confirm checks e's chain id unless it was since its last fault. A wrong id
// leaves e out for WrongChainBackoff; an unreachable e is backed off.
func (p *Pool) confirm(ctx context.Context, e *endpoint) error {
	p.mu.Lock()
	ok := e.confirmed
	p.mu.Unlock()
	if ok {
		return nil
	}
	id, err := e.rpc.ChainID(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if !IsEndpointFault(err) { // a JSON-RPC error: the id stays unknown
			err = &EndpointError{Endpoint: e.rpc.url, Method: "eth_chainId", Kind: FaultGarbage, Err: err}
		}
		p.fault(e, err)
		return err
	}
	if id != p.chainID {
		err := &ChainIDError{Network: p.network, Endpoint: e.rpc.url, Got: id, Want: p.chainID}
		p.mu.Lock()
		e.confirmed, e.lastErr = false, err
		e.until = p.opts.Now().Add(p.opts.WrongChainBackoff)
		p.mu.Unlock()
		p.log.Error("chain: RPC endpoint serves another chain; left out", "endpoint", e.rpc.url,
			"chain_id", id, "want", p.chainID, "for", p.opts.WrongChainBackoff)
		return err
	}
	p.mu.Lock()
	e.confirmed = true
	p.mu.Unlock()
	return nil
}

// Stats returns the pool's traffic so far.
func (p *Pool) Stats() Stats {
	s := Stats{Calls: map[string]int64{}, Failovers: p.failovers.Load()}
	for _, e := range p.eps {
		s.addEndpoint(e.rpc.Stats())
	}
	return s
}

// Calls returns the JSON-RPC calls made so far per method, over every endpoint (a
// batch of n calls counts n).
func (p *Pool) Calls() map[string]int64 { return p.Stats().Calls }
