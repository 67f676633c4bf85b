package chain

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/kassapay/kassa"
)

// Step runs fn with one endpoint's Node: the first, in order of preference, that
// is not backing off and whose chain id is confirmed (it is asked first if not).
// When fn fails with an endpoint fault (IsEndpointFault: a timeout, a connection
// error, an HTTP error or 429, a malformed answer, or ErrLagging), the endpoint is
// backed off and fn runs again with the next endpoint, each endpoint at most once.
// Any other error (a JSON-RPC error answer, ErrNotFound) is fn's answer and is
// returned as is. When no endpoint could run fn, the error wraps ErrUnavailable
// and the last fault. Step does not wait for a backoff to end, and stops when ctx
// is done.
func (p *Pool) Step(ctx context.Context, fn func(n Node) error) error {
	tried := make([]bool, len(p.eps))
	var last error
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		e := p.pick(tried)
		if e == nil {
			break
		}
		tried[e.idx] = true
		if last != nil {
			p.failovers.Add(1)
			if p.opts.Metrics != nil {
				p.opts.Metrics.Failover(p.network)
			}
			p.log.Info("chain: failing over to the next RPC endpoint", "endpoint", e.rpc.url)
		}
		if err := p.confirm(ctx, e); err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			last = err
			continue
		}
		err := fn(e.rpc)
		if ctx.Err() != nil {
			return err
		}
		if err == nil || !IsEndpointFault(err) {
			p.healthy(e)
			return err
		}
		p.fault(e, err)
		last = err
	}
	if last == nil {
		last = p.soonest()
	}
	return fmt.Errorf("%w: network %q: %w", ErrUnavailable, p.network, last)
}

// pick returns the first endpoint not tried and not backing off, or nil.
func (p *Pool) pick(tried []bool) *endpoint {
	now := p.opts.Now()
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, e := range p.eps {
		if !tried[e.idx] && !now.Before(e.until) {
			return e
		}
	}
	return nil
}

// soonest returns the last error of the endpoint whose backoff ends first.
func (p *Pool) soonest() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	var best *endpoint
	for _, e := range p.eps {
		if best == nil || e.until.Before(best.until) {
			best = e
		}
	}
	if best.lastErr == nil {
		return errors.New("every endpoint is backing off")
	}
	return fmt.Errorf("every endpoint is backing off, %s until %s: %w", best.rpc.url,
		best.until.Format(time.RFC3339Nano), best.lastErr)
}

// fault backs e off after err: BackoffBase doubled per consecutive fault up to
// BackoffMax, ±20 % jitter, at least a 429's Retry-After. A transport fault also
// makes e's chain id be checked again before its next use.
func (p *Pool) fault(e *endpoint, err error) {
	var ee *EndpointError
	isEE := errors.As(err, &ee)
	p.mu.Lock()
	e.failures++
	d := p.opts.BackoffBase
	for i := 1; i < e.failures && d < p.opts.BackoffMax; i++ {
		d *= 2
	}
	d = min(d, p.opts.BackoffMax)
	d = time.Duration(float64(d) * (0.8 + 0.4*rand.Float64()))
	if isEE && ee.RetryAfter > d {
		d = min(ee.RetryAfter, maxRetryAfter)
	}
	if isEE {
		e.confirmed = false
	}
	e.until = p.opts.Now().Add(d)
	e.lastErr = err
	n := e.failures
	p.mu.Unlock()
	p.log.Warn("chain: RPC endpoint fault; backing off", "endpoint", e.rpc.url, "err", err,
		"consecutive", n, "backoff", d)
}

// healthy clears e's backoff after an answer.
func (p *Pool) healthy(e *endpoint) {
	p.mu.Lock()
	n := e.failures
	e.failures, e.until, e.lastErr = 0, time.Time{}, nil
	p.mu.Unlock()
	if n > 0 {
		p.log.Info("chain: RPC endpoint answers again", "endpoint", e.rpc.url, "after_faults", n)
	}
}

// Node returns a Node whose every call is a Step of its own, for one-off calls
// (verify): it fails over, but two calls may see two endpoints' views of the chain.
func (p *Pool) Node() Node { return poolNode{p} }

type poolNode struct{ p *Pool }

func (n poolNode) ChainID(ctx context.Context) (id int64, err error) {
	err = n.p.Step(ctx, func(node Node) error { id, err = node.ChainID(ctx); return err })
	return id, err
}

func (n poolNode) Head(ctx context.Context) (b kassa.BlockRef, err error) {
	err = n.p.Step(ctx, func(node Node) error { b, err = node.Head(ctx); return err })
	return b, err
}

func (n poolNode) Headers(ctx context.Context, from, to uint64) (bs []kassa.BlockRef, err error) {
	err = n.p.Step(ctx, func(node Node) error { bs, err = node.Headers(ctx, from, to); return err })
	return bs, err
}

func (n poolNode) Blocks(ctx context.Context, from, to uint64) (bs []Block, err error) {
	err = n.p.Step(ctx, func(node Node) error { bs, err = node.Blocks(ctx, from, to); return err })
	return bs, err
}

func (n poolNode) Transfers(ctx context.Context, q LogQuery) (ts []kassa.Transfer, err error) {
	err = n.p.Step(ctx, func(node Node) error { ts, err = node.Transfers(ctx, q); return err })
	return ts, err
}

func (n poolNode) Transaction(ctx context.Context, hash string) (tx *Tx, err error) {
	err = n.p.Step(ctx, func(node Node) error { tx, err = node.Transaction(ctx, hash); return err })
	return tx, err
}
