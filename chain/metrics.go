package chain

import (
	"context"
	"errors"
	"slices"
	"time"

	"github.com/ethereum/go-ethereum/rpc"
)

// Metrics receives the chain's figures as they happen: JSON-RPC calls, endpoint
// failovers, blocks scanned and reorganisations. The metrics package implements
// it; a nil Metrics reports nothing. Every argument is a fixed-set value (a
// network name, a JSON-RPC method name, an RPCOutcome), never a URL, an address
// or a hash.
type Metrics interface {
	// RPCCalls counts n JSON-RPC calls of method on network that ended with
	// outcome (a batch counts each of its calls).
	RPCCalls(network, method, outcome string, n int)
	// RPCDuration records how long one HTTP exchange carrying calls of method took
	// (a call, or a batch: once per method it carries).
	RPCDuration(network, method string, took time.Duration)
	// Failover counts a step moving on to the network's next endpoint.
	Failover(network string)
	// BlocksScanned counts blocks a watcher read and processed.
	BlocksScanned(network string, n int)
	// Reorganisation counts a reorganisation of depth blocks (the cursor's
	// height minus the common ancestor's).
	Reorganisation(network string, depth uint64)
}

// Outcomes of a JSON-RPC call (Metrics.RPCCalls).
const (
	RPCOK          = "ok"           // answered
	RPCError       = "error"        // a JSON-RPC error answer (reverted, not found, range too large)
	RPCTimeout     = "timeout"      // the call's timeout passed
	RPCRateLimited = "rate_limited" // HTTP 429 or a rate-limit answer
	RPCFault       = "fault"        // another endpoint fault: transport, HTTP status, malformed answer
	RPCCanceled    = "canceled"     // the caller's context ended first
)

// RPCOutcomes are every outcome, for series created at zero.
var RPCOutcomes = []string{RPCOK, RPCError, RPCTimeout, RPCRateLimited, RPCFault, RPCCanceled}

// RPCMethods are the JSON-RPC methods Kassa calls: the method label's values.
var RPCMethods = []string{"eth_chainId", "eth_getBlockByNumber", "eth_getLogs", "eth_getTransactionByHash",
	"eth_getTransactionReceipt", "eth_getTransactionCount", "eth_getBalance", "eth_call", "eth_estimateGas",
	"eth_maxPriorityFeePerGas", "eth_sendRawTransaction", "eth_subscribe"}

// rpcOutcome is the outcome of an error RPC.classify returned.
func rpcOutcome(err error) string {
	if err == nil {
		return RPCOK
	}
	var ee *EndpointError
	if errors.As(err, &ee) {
		switch ee.Kind {
		case FaultTimeout:
			return RPCTimeout
		case FaultRateLimit:
			return RPCRateLimited
		}
		return RPCFault
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return RPCCanceled
	}
	return RPCError
}

// rpcTally is the calls of one method with one outcome in an exchange.
type rpcTally struct {
	method, outcome string
	n               int
}

// observeCall reports one call of method that returned err after took.
func (r *RPC) observeCall(method string, err error, took time.Duration) {
	r.metrics.RPCCalls(r.network, method, rpcOutcome(err), 1)
	r.metrics.RPCDuration(r.network, method, took)
}

// observeBatch reports the calls of batch b: each with the batch's outcome when
// the batch failed, else with its own answer's; and the batch's duration once per
// method it carries.
func (r *RPC) observeBatch(ctx context.Context, b []rpc.BatchElem, err error, took time.Duration) {
	var tally []rpcTally
	for _, e := range b {
		outcome := rpcOutcome(err)
		if err == nil && e.Error != nil {
			outcome = rpcOutcome(r.classify(ctx, nil, e.Method, e.Error))
		}
		i := 0
		for i < len(tally) && (tally[i].method != e.Method || tally[i].outcome != outcome) {
			i++
		}
		if i == len(tally) {
			tally = append(tally, rpcTally{method: e.Method, outcome: outcome})
		}
		tally[i].n++
	}
	for i, t := range tally {
		r.metrics.RPCCalls(r.network, t.method, t.outcome, t.n)
		if !slices.ContainsFunc(tally[:i], func(o rpcTally) bool { return o.method == t.method }) {
			r.metrics.RPCDuration(r.network, t.method, took)
		}
	}
}
