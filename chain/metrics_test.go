package chain_test

import (
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/kassapay/kassa/chain"
	"github.com/kassapay/kassa/devchain"
	"github.com/kassapay/kassa/metrics"
	"github.com/kassapay/kassa/metrics/metricstest"
	"github.com/kassapay/kassa/store"
	"github.com/kassapay/kassa/store/storetest"
)

// TestChainMetricsOnTheDevChain: a watcher over a pool whose first endpoint
// answers 500 and whose second is the dev chain, with metrics on. The RPC
// counters agree call for call with the pool's own count, the faults and the
// failovers are counted, the blocks scanned and the processed block match the
// chain, and a two-block reorganisation is counted with its depth. No label
// names an endpoint.
func TestChainMetricsOnTheDevChain(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		f, d := onDevChain(t, cfg)
		m := metrics.New(metrics.Config{Registry: f.reg})
		faulty, good := newFaultyProxy(t, d.URL()), newFaultyProxy(t, d.URL())
		pool, err := chain.NewPool("devchain", devchain.ChainID, []string{faulty.srv.URL, good.srv.URL},
			chain.PoolOptions{Timeout: time.Second, BackoffBase: time.Hour, Metrics: m})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(pool.Close)
		if err := pool.Check(f.ctx); err != nil {
			t.Fatal(err)
		}
		faulty.set("500")
		f.w.Nodes, f.w.Metrics = pool, m
		ws := &chain.Watchers{}
		ws.Add(f.w, time.Second)
		m.Scrape(metrics.Sources{Chains: func() []metrics.ChainProgress {
			var out []metrics.ChainProgress
			for _, p := range ws.Progress() {
				out = append(out, metrics.ChainProgress{Network: p.Network, Head: p.Head, Processed: p.Processed, At: p.At, Current: p.Current})
			}
			return out
		}})
		srv := httptest.NewServer(m.Handler())
		t.Cleanup(srv.Close)

		for range 3 {
			d.Mine()
		}
		f.sync(t)
		parent := d.head(t)
		d.Mine()
		d.Mine()
		f.sync(t)
		d.reorgTo(t, parent, false)
		for range 3 {
			d.Mine()
		}
		f.sync(t)

		s := pool.Stats()
		fm := metricstest.Scrape(t, srv.URL)
		var calls float64
		for _, series := range fm["kassa_chain_rpc_requests_total"].GetMetric() {
			calls += series.GetCounter().GetValue()
			for _, l := range series.GetLabel() {
				if v := l.GetValue(); strings.Contains(v, "://") || strings.Contains(v, "127.0.0.1") {
					t.Errorf("label %s=%q names an endpoint", l.GetName(), v)
				}
			}
		}
		if calls != float64(s.Total()) {
			t.Errorf("kassa_chain_rpc_requests_total sums to %v, the pool made %d calls: %v", calls, s.Total(), s.Calls)
		}
		ok := func(method string) float64 {
			return fm.Value(t, "kassa_chain_rpc_requests_total", "network", "devchain", "method", method, "outcome", "ok")
		}
		if ok("eth_chainId") < 2 || ok("eth_getBlockByNumber") == 0 {
			t.Errorf("ok calls: eth_chainId %v, eth_getBlockByNumber %v; the pool's %v", ok("eth_chainId"), ok("eth_getBlockByNumber"), s.Calls)
		}
		if got := fm.Value(t, "kassa_chain_rpc_requests_total", "network", "devchain", "method", "eth_getBlockByNumber", "outcome", "fault"); got < 1 {
			t.Errorf("the 500 answer was not counted a fault: %v", got)
		}
		if got := fm.Value(t, "kassa_chain_endpoint_failovers_total", "network", "devchain"); got < 1 || got != float64(s.Failovers) {
			t.Errorf("kassa_chain_endpoint_failovers_total %v, the pool counted %d", got, s.Failovers)
		}
		if got := fm.Value(t, "kassa_chain_rpc_duration_seconds", "network", "devchain", "method", "eth_getBlockByNumber"); got == 0 {
			t.Error("no eth_getBlockByNumber exchange timed")
		}
		head := d.head(t)
		for _, c := range []struct {
			name string
			want float64
		}{
			{"kassa_chain_reorganisations_total", 1},
			{"kassa_chain_reorganisation_depth_blocks", 1}, // its count
			{"kassa_chain_deep_reorganisations_total", 0},  // 2 blocks, 3 confirmations
			{"kassa_chain_blocks_scanned_total", float64(parent + 2 + 3)},
			{"kassa_chain_processed_block", float64(head)},
			{"kassa_chain_head_block", float64(head)},
		} {
			if got := fm.Value(t, c.name, "network", "devchain"); got != c.want {
				t.Errorf("%s = %v, want %v", c.name, got, c.want)
			}
		}
		for _, series := range fm["kassa_chain_reorganisation_depth_blocks"].GetMetric() {
			if sum := series.GetHistogram().GetSampleSum(); sum != 2 {
				t.Errorf("reorganisation depth %v, want 2", sum)
			}
		}
	})
}
