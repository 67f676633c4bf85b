package metrics

import (
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kassapay/kassa/chain"
	"github.com/kassapay/kassa/metrics/metricstest"
	"github.com/kassapay/kassa/registry"
)

var _ chain.Metrics = (*Metrics)(nil)

// TestChainMetrics: what the chain reports comes out by network, method and
// outcome; an unknown network, method or outcome becomes "other", and the head and
// processed blocks come from the instance watching the network now.
func TestChainMetrics(t *testing.T) {
	m := New(Config{Registry: registry.Default()})
	m.RPCCalls("devchain", "eth_getBlockByNumber", chain.RPCOK, 100) // a batch of 100
	m.RPCCalls("devchain", "eth_getBlockByNumber", chain.RPCOK, 1)
	m.RPCCalls("devchain", "eth_getLogs", chain.RPCTimeout, 1)
	m.RPCCalls("devchain", "eth_getLogs", chain.RPCError, 2)
	m.RPCCalls("devchain", "eth_madeUp", chain.RPCOK, 1)
	m.RPCCalls("https://rpc.example/KEY", "eth_chainId", "0xdeadbeef", 1)
	m.RPCDuration("devchain", "eth_getBlockByNumber", 4*time.Millisecond)
	m.RPCDuration("devchain", "eth_getBlockByNumber", 2*time.Second)
	m.Failover("bsc")
	m.Failover("bsc")
	m.BlocksScanned("devchain", 500)
	m.BlocksScanned("devchain", 3)
	m.Reorganisation("devchain", 1)
	m.Reorganisation("devchain", 7)
	m.Reorganisation("devchain", 2) // below devchain's 3 confirmations
	m.Reorganisation("devchain", 3) // reaches a block with 3
	m.Reorganisation("bsc", 14)     // below bsc's 15
	now := time.Now()
	m.Scrape(Sources{Chains: func() []ChainProgress {
		return []ChainProgress{{Network: "devchain", Head: 120, Processed: 100, At: now, Current: true},
			{Network: "bsc", Head: 9, Processed: 9, At: now.Add(-time.Hour)}}
	}})
	srv := httptest.NewServer(m.Handler())
	defer srv.Close()
	f := metricstest.Scrape(t, srv.URL)

	for _, c := range []struct {
		name   string
		labels []string
		want   float64
	}{
		{"kassa_chain_rpc_requests_total", []string{"network", "devchain", "method", "eth_getBlockByNumber", "outcome", "ok"}, 101},
		{"kassa_chain_rpc_requests_total", []string{"network", "devchain", "method", "eth_getLogs", "outcome", "timeout"}, 1},
		{"kassa_chain_rpc_requests_total", []string{"network", "devchain", "method", "eth_getLogs", "outcome", "error"}, 2},
		{"kassa_chain_rpc_requests_total", []string{"network", "devchain", "method", "eth_getLogs", "outcome", "rate_limited"}, 0},
		{"kassa_chain_rpc_requests_total", []string{"network", "devchain", "method", "other", "outcome", "ok"}, 1},
		{"kassa_chain_rpc_requests_total", []string{"network", "other", "method", "eth_chainId", "outcome", "other"}, 1},
		{"kassa_chain_rpc_duration_seconds", []string{"network", "devchain", "method", "eth_getBlockByNumber"}, 2},
		{"kassa_chain_endpoint_failovers_total", []string{"network", "bsc"}, 2},
		{"kassa_chain_endpoint_failovers_total", []string{"network", "ethereum"}, 0},
		{"kassa_chain_blocks_scanned_total", []string{"network", "devchain"}, 503},
		{"kassa_chain_reorganisations_total", []string{"network", "devchain"}, 4},
		{"kassa_chain_reorganisations_total", []string{"network", "bsc"}, 1},
		{"kassa_chain_reorganisations_total", []string{"network", "ethereum"}, 0},
		{"kassa_chain_reorganisation_depth_blocks", []string{"network", "devchain"}, 4},
		{"kassa_chain_deep_reorganisations_total", []string{"network", "devchain"}, 2},
		{"kassa_chain_deep_reorganisations_total", []string{"network", "bsc"}, 0},
		{"kassa_chain_confirmations", []string{"network", "bsc"}, 15},
		{"kassa_chain_confirmations", []string{"network", "devchain"}, 3},
		{"kassa_chain_head_block", []string{"network", "devchain"}, 120},
		{"kassa_chain_processed_block", []string{"network", "devchain"}, 100},
	} {
		if got := f.Value(t, c.name, c.labels...); got != c.want {
			t.Errorf("%s%v = %v, want %v", c.name, c.labels, got, c.want)
		}
	}
	if _, ok := f.Lookup("kassa_chain_rpc_requests_total", "network", "bsc"); ok {
		t.Error("RPC series of a network never called")
	}
	if _, ok := f.Lookup("kassa_chain_head_block", "network", "bsc"); ok {
		t.Error("a stale step (another instance watches the network now) reported a head")
	}
	if sum := histogramSum(t, f, "kassa_chain_reorganisation_depth_blocks", "devchain"); sum != 13 {
		t.Errorf("reorganisation depths sum to %v, want 13", sum)
	}
	checkLabelsSafe(t, f)
	metricstest.Promtool(t, metricstest.ScrapeText(t, srv.URL))
}

// histogramSum is the sum of network's series of histogram name.
func histogramSum(t *testing.T, f metricstest.Families, name, network string) float64 {
	t.Helper()
	for _, s := range f[name].GetMetric() {
		for _, l := range s.GetLabel() {
			if l.GetName() == "network" && l.GetValue() == network {
				return s.GetHistogram().GetSampleSum()
			}
		}
	}
	t.Fatalf("no %s for %s", name, network)
	return 0
}

// unsafeLabel matches what must never be a label value: a URL, a hex address or
// hash, a UUID, a long number (an id or a block height).
var unsafeLabel = regexp.MustCompile(`://|0x[0-9a-fA-F]{6,}|[0-9a-f]{8}-[0-9a-f]{4}-|^[0-9]{6,}$`)

// checkLabelsSafe fails t when a kassa_chain_ series has a label outside network,
// method, outcome and le, or a value that looks like an id, a hash, an address or
// a URL.
func checkLabelsSafe(t *testing.T, f metricstest.Families) {
	t.Helper()
	allowed := []string{"network", "method", "outcome"}
	for name, fam := range f {
		if !strings.HasPrefix(name, "kassa_chain_") {
			continue
		}
		for _, s := range fam.GetMetric() {
			for _, l := range s.GetLabel() {
				if !slices.Contains(allowed, l.GetName()) {
					t.Errorf("%s has label %s", name, l.GetName())
				}
				if unsafeLabel.MatchString(l.GetValue()) {
					t.Errorf("%s has label %s=%q, which looks like an id, a hash, an address or a URL", name, l.GetName(), l.GetValue())
				}
			}
		}
	}
}

// TestChainLabelSetsKnown: the methods and outcomes kept here are the chain's.
func TestChainLabelSetsKnown(t *testing.T) {
	if !slices.Equal(rpcMethods, chain.RPCMethods) {
		t.Errorf("rpcMethods %q, want chain.RPCMethods %q", rpcMethods, chain.RPCMethods)
	}
	if !slices.Equal(rpcOutcomes, chain.RPCOutcomes) {
		t.Errorf("rpcOutcomes %q, want chain.RPCOutcomes %q", rpcOutcomes, chain.RPCOutcomes)
	}
}

// TestChainRecordersAllocate: counting a call of a known network, method and
// outcome allocates nothing.
func TestChainRecordersAllocate(t *testing.T) {
	m := New(Config{Registry: registry.Default()})
	m.RPCCalls("devchain", "eth_getLogs", "ok", 1)
	if n := testing.AllocsPerRun(1000, func() {
		m.RPCCalls("devchain", "eth_getLogs", "ok", 1)
		m.RPCDuration("devchain", "eth_getLogs", time.Millisecond)
	}); n != 0 {
		t.Fatalf("%v allocations per call", n)
	}
}
