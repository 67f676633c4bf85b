package chain

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"time"

	"github.com/ethereum/go-ethereum/rpc"
)

// Backoff bounds of a newHeads subscription that failed or dropped: the first
// retry waits headsRetryMin, each next one twice as long, up to headsRetryMax.
const (
	headsRetryMin = time.Second
	headsRetryMax = 30 * time.Second
)

// Heads follows a network's new blocks over a WebSocket JSON-RPC endpoint's
// newHeads subscription (eth_subscribe) and signals Wake for each, so the
// network's watcher steps as soon as a block is available instead of at its
// next poll. It costs one WebSocket connection and one eth_subscribe call per
// (re)subscription; the notifications are pushed. The watcher keeps polling:
// while the subscription is down, polling alone finds the blocks.
type Heads struct {
	// URL is the ws:// or wss:// endpoint.
	URL string
	// Network labels the metrics.
	Network string
	// Wake receives a signal per new head; a signal already waiting covers the
	// next head (the watcher's step reads the node's head itself).
	Wake chan<- struct{}
	// Metrics counts each eth_subscribe call with its outcome; nil: none.
	Metrics Metrics
	// Log reports a failed or dropped subscription at level Warn; nil discards.
	Log *slog.Logger
}

// Run follows the heads until ctx ends: subscribe, signal Wake per head, and
// after a failed or dropped subscription wait (backoff) and subscribe again.
func (h Heads) Run(ctx context.Context) {
	log := h.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	wait := headsRetryMin
	for {
		followed, err := h.follow(ctx)
		if ctx.Err() != nil {
			return
		}
		if followed {
			wait = headsRetryMin // it worked for a while: the next try is soon
		}
		log.LogAttrs(ctx, slog.LevelWarn, "chain heads subscription down; polling until it is back",
			slog.String("network", h.Network), slog.String("endpoint", Redact(h.URL)),
			slog.String("err", err.Error()), slog.Duration("retry_in", wait))
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
		wait = min(2*wait, headsRetryMax)
	}
}

// follow dials, subscribes and signals Wake per head until the subscription
// ends or ctx does; followed reports that at least one head arrived.
func (h Heads) follow(ctx context.Context) (followed bool, err error) {
	dctx, cancel := context.WithTimeout(ctx, DefaultTimeout)
	defer cancel()
	c, err := rpc.DialContext(dctx, h.URL)
	if err != nil {
		h.observe(ctx, err)
		return false, err
	}
	defer c.Close()
	heads := make(chan json.RawMessage, 16)
	start := time.Now()
	sub, err := c.EthSubscribe(dctx, heads, "newHeads")
	h.observe(ctx, err)
	if h.Metrics != nil {
		h.Metrics.RPCDuration(h.Network, "eth_subscribe", time.Since(start))
	}
	if err != nil {
		return false, err
	}
	defer sub.Unsubscribe()
	for {
		select {
		case <-ctx.Done():
			return followed, ctx.Err()
		case err := <-sub.Err():
			if err == nil {
				err = rpc.ErrClientQuit
			}
			return followed, err
		case <-heads:
			followed = true
			select {
			case h.Wake <- struct{}{}:
			default:
			}
		}
	}
}

// observe counts one eth_subscribe call that ended with err: a JSON-RPC error
// answer (no subscriptions here) is an error, a dial or transport failure a
// fault.
func (h Heads) observe(ctx context.Context, err error) {
	if h.Metrics == nil {
		return
	}
	var rpcErr rpc.Error
	outcome := RPCOK
	switch {
	case err == nil:
	case ctx.Err() != nil:
		outcome = RPCCanceled
	case errors.As(err, &rpcErr):
		outcome = RPCError
	case errors.Is(err, context.DeadlineExceeded):
		outcome = RPCTimeout
	default:
		outcome = RPCFault
	}
	h.Metrics.RPCCalls(h.Network, "eth_subscribe", outcome, 1)
}
