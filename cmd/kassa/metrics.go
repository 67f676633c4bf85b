package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"time"

	"kassa"
	"kassa/api"
	"kassa/api/httpx"
	"kassa/metrics"
	"kassa/store"
	"kassa/stream"
)

// metricsFlags are serve's metrics flags: whether /metrics and the counting behind
// it are on, and who may read it.
type metricsFlags struct {
	on       bool
	networks httpx.Networks
	raw      string
}

func (m *metricsFlags) register(fs *flag.FlagSet) {
	fs.BoolVar(&m.on, "metrics", envBoolOr("KASSA_METRICS", true), "serve Prometheus metrics at GET /metrics and count them; false turns both off (env KASSA_METRICS)")
	fs.StringVar(&m.raw, "metrics-allowed-networks", envOr("KASSA_METRICS_ALLOWED_NETWORKS", httpx.LoopbackNetworks.String()),
		"comma-separated CIDR prefixes whose clients (by TCP peer address, not through a proxy) may read /metrics; others get 404 (env KASSA_METRICS_ALLOWED_NETWORKS)")
}

// parse checks the networks once the flags are parsed.
func (m *metricsFlags) parse() error {
	nets, err := httpx.ParseNetworks(m.raw)
	if err != nil {
		return fmt.Errorf("--metrics-allowed-networks: %w (to turn metrics off, use --metrics=false)", err)
	}
	m.networks = nets
	return nil
}

// newMetrics returns the metrics when they are on, else nil.
func (m *metricsFlags) newMetrics(reg kassa.Registry) *metrics.Metrics {
	if !m.on {
		return nil
	}
	return metrics.New(metrics.Config{Registry: reg})
}

// observe makes the store report its commits to m (nil: the store reports nothing).
func observe(cfg *store.Config, m *metrics.Metrics) {
	if m != nil {
		cfg.Observer = m
	}
}

// serveMetrics gives the API the metrics and their route, and the metrics what they
// read at each scrape: readiness, the webhook queue, the chain watchers, the hub.
func serveMetrics(ac *api.Config, m *metrics.Metrics, f *metricsFlags, db *store.DB, c *chains, hub *stream.Hub) {
	if m == nil {
		return
	}
	ac.Metrics, ac.MetricsHandler, ac.MetricsNetworks = m, m.Handler(), f.networks
	m.Scrape(metrics.Sources{
		Ready: func(ctx context.Context) error { // as /readyz: not ready while draining either
			if ac.Draining != nil && ac.Draining() {
				return errors.New("draining")
			}
			return db.Ping(ctx)
		},
		Warnings: ac.Warnings,
		WebhookBacklog: func(ctx context.Context, now time.Time) (metrics.WebhookBacklog, error) {
			b, err := db.WebhookBacklog(ctx, now)
			return metrics.WebhookBacklog{Pending: b.Pending, Due: b.Due, OldestPending: b.OldestPending, OldestDue: b.OldestDue}, err
		},
		Chains: func() []metrics.ChainProgress {
			var out []metrics.ChainProgress
			for _, p := range c.watchers.Progress() {
				out = append(out, metrics.ChainProgress{Network: p.Network, Head: p.Head, Processed: p.Processed,
					At: p.At, Current: p.Current})
			}
			return out
		},
		Subscribers: hub.Subscribers,
	})
}
