package metrics

import (
	"slices"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/kassapay/kassa"
)

// chainMetrics are the chain's series (chain.Metrics): JSON-RPC calls and their
// latency by network and method, endpoint failovers, blocks scanned and
// reorganisations. An endpoint is never a label (its URL may carry an API key).
type chainMetrics struct {
	rpcCalls      *prometheus.CounterVec
	rpcDuration   *prometheus.HistogramVec
	failovers     *prometheus.CounterVec
	blocksScanned *prometheus.CounterVec
	reorgs        *prometheus.CounterVec
	reorgDepth    *prometheus.HistogramVec
	deepReorgs    *prometheus.CounterVec
	confirmations *prometheus.GaugeVec
	confirmBy     map[string]uint64 // the registry's confirmations by network

	seen sync.Map // network label -> true once its RPC series exist
}

// rpcBuckets span a loopback node (a millisecond) to the call timeout (10 s).
var rpcBuckets = []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10}

// reorgBuckets span a one-block reorganisation to the blocks a watcher remembers
// (chain.DefaultKeep).
var reorgBuckets = []float64{1, 2, 3, 5, 8, 12, 20, 50, 100, 256}

// rpcMethods are chain.RPCMethods (kept here so this package does not import the
// chain package): the method label's values; any other is "other".
var rpcMethods = []string{"eth_chainId", "eth_getBlockByNumber", "eth_getLogs", "eth_getTransactionByHash",
	"eth_getTransactionReceipt", "eth_getTransactionCount", "eth_getBalance", "eth_call", "eth_estimateGas",
	"eth_maxPriorityFeePerGas", "eth_sendRawTransaction"}

// rpcOutcomes are chain.RPCOutcomes; any other is "other".
var rpcOutcomes = []string{"ok", "error", "timeout", "rate_limited", "fault", "canceled"}

const otherLabel = "other"

func newChainMetrics() *chainMetrics {
	return &chainMetrics{
		rpcCalls: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "kassa_chain_rpc_requests_total",
			Help: "JSON-RPC calls to the networks' nodes, by network, method and outcome (ok, error: a JSON-RPC error answer, timeout, rate_limited, fault: another endpoint fault, canceled); a batch counts each call."},
			[]string{"network", "method", "outcome"}),
		rpcDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "kassa_chain_rpc_duration_seconds",
			Help:    "Time of one JSON-RPC exchange (a call or a batch) with a node, by network and method.",
			Buckets: rpcBuckets}, []string{"network", "method"}),
		failovers: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "kassa_chain_endpoint_failovers_total",
			Help: "Times a chain step moved on to the network's next RPC endpoint after a fault."}, []string{"network"}),
		blocksScanned: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "kassa_chain_blocks_scanned_total",
			Help: "Blocks the watcher read and processed, by network."}, []string{"network"}),
		reorgs: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "kassa_chain_reorganisations_total",
			Help: "Chain reorganisations the watcher undid, by network."}, []string{"network"}),
		reorgDepth: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "kassa_chain_reorganisation_depth_blocks",
			Help:    "Depth of the reorganisations the watcher undid (blocks between its cursor and the common ancestor), by network.",
			Buckets: reorgBuckets}, []string{"network"}),
		deepReorgs: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "kassa_chain_deep_reorganisations_total",
			Help: "Reorganisations at least as deep as the network's confirmations: blocks that had confirmed payments left the chain."},
			[]string{"network"}),
		confirmations: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "kassa_chain_confirmations",
			Help: "Blocks before a payment counts as confirmed on the network (the registry's setting)."}, []string{"network"}),
		confirmBy: map[string]uint64{},
	}
}

func (c *chainMetrics) collectors() []prometheus.Collector {
	return []prometheus.Collector{c.rpcCalls, c.rpcDuration, c.failovers, c.blocksScanned, c.reorgs, c.reorgDepth,
		c.deepReorgs, c.confirmations}
}

// initNetworks creates every registry network's per-network series at zero and
// sets its confirmations.
func (c *chainMetrics) initNetworks(reg kassa.Registry) {
	for _, env := range []kassa.Environment{kassa.Devnet, kassa.Mainnet} {
		for _, n := range reg.Networks(env) {
			c.failovers.WithLabelValues(n.Name)
			c.blocksScanned.WithLabelValues(n.Name)
			c.reorgs.WithLabelValues(n.Name)
			c.deepReorgs.WithLabelValues(n.Name)
			c.confirmBy[n.Name] = uint64(max(n.Confirmations, 1))
			c.confirmations.WithLabelValues(n.Name).Set(float64(n.Confirmations))
		}
	}
}

// RPCCalls counts n JSON-RPC calls (chain.Metrics). A network's first call
// creates its series of every method and outcome at zero, so that the first
// error shows in rate(); networks never called have none.
func (m *Metrics) RPCCalls(network, method, outcome string, n int) {
	network = m.network(network)
	if _, ok := m.chain.seen.Load(network); !ok {
		m.chain.seen.Store(network, true)
		for _, me := range rpcMethods {
			for _, o := range rpcOutcomes {
				m.chain.rpcCalls.WithLabelValues(network, me, o)
			}
		}
	}
	m.chain.rpcCalls.WithLabelValues(network, rpcMethod(method), rpcOutcome(outcome)).Add(float64(n))
}

// RPCDuration records one JSON-RPC exchange's time (chain.Metrics).
func (m *Metrics) RPCDuration(network, method string, took time.Duration) {
	m.chain.rpcDuration.WithLabelValues(m.network(network), rpcMethod(method)).Observe(took.Seconds())
}

// Failover counts a move to the network's next endpoint (chain.Metrics).
func (m *Metrics) Failover(network string) {
	m.chain.failovers.WithLabelValues(m.network(network)).Inc()
}

// BlocksScanned counts blocks a watcher processed (chain.Metrics).
func (m *Metrics) BlocksScanned(network string, n int) {
	m.chain.blocksScanned.WithLabelValues(m.network(network)).Add(float64(n))
}

// Reorganisation counts a reorganisation and its depth (chain.Metrics), and
// counts it deep when it reached blocks with the network's confirmations: depth
// at least the confirmations (a block with c confirmations is c-1 below the head).
func (m *Metrics) Reorganisation(network string, depth uint64) {
	network = m.network(network)
	m.chain.reorgs.WithLabelValues(network).Inc()
	m.chain.reorgDepth.WithLabelValues(network).Observe(float64(depth))
	if c, ok := m.chain.confirmBy[network]; ok && depth >= c {
		m.chain.deepReorgs.WithLabelValues(network).Inc()
	}
}

func rpcMethod(method string) string {
	if slices.Contains(rpcMethods, method) {
		return method
	}
	return otherLabel
}

func rpcOutcome(outcome string) string {
	if slices.Contains(rpcOutcomes, outcome) {
		return outcome
	}
	return otherLabel
}
