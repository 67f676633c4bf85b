package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/api"
	"github.com/kassapay/kassa/api/httpx"
	"github.com/kassapay/kassa/chain"
	"github.com/kassapay/kassa/metrics"
	"github.com/kassapay/kassa/store"
	"github.com/kassapay/kassa/stream"
)

// metricsFlags are serve's metrics flags: whether /metrics and the counting behind
// it are on, who may read it, and whether it has a listener of its own.
type metricsFlags struct {
	on       bool
	networks httpx.Networks
	raw      string
	addr     string // --metrics-addr: /metrics is served there only; "": on the main listener
}

func (m *metricsFlags) register(fs *flag.FlagSet) {
	fs.BoolVar(&m.on, "metrics", envBoolOr("KASSA_METRICS", true), "serve Prometheus metrics at GET /metrics and count them; false turns both off (env KASSA_METRICS)")
	fs.StringVar(&m.raw, "metrics-allowed-networks", envOr("KASSA_METRICS_ALLOWED_NETWORKS", httpx.LoopbackNetworks.String()),
		"comma-separated CIDR prefixes whose clients (by TCP peer address, not through a proxy) may read /metrics; others get 404 (env KASSA_METRICS_ALLOWED_NETWORKS)")
	fs.StringVar(&m.addr, "metrics-addr", envOr("KASSA_METRICS_ADDR", ""),
		"serve /metrics on this address only, a listener of its own that no proxy fronts (e.g. 127.0.0.1:9090), and not on --addr; empty: on --addr (env KASSA_METRICS_ADDR)")
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

// chainMetrics is m as the chains' chain.Metrics: nil (no interface holding a
// nil pointer) when metrics are off.
func chainMetrics(m *metrics.Metrics) chain.Metrics {
	if m == nil {
		return nil
	}
	return m
}

// serveMetrics gives the API the metrics and their route (unless --metrics-addr
// gives them a listener of their own), and the metrics what they read at each
// scrape: readiness, the webhook queue, the chain watchers, the hub.
func serveMetrics(ac *api.Config, m *metrics.Metrics, f *metricsFlags, db *store.DB, c *chains, hub *stream.Hub) {
	if m == nil {
		return
	}
	ac.Metrics = m
	if f.addr == "" {
		ac.MetricsHandler, ac.MetricsNetworks = m.Handler(), f.networks
	}
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

// listen serves /metrics on --metrics-addr until ctx ends, when it is set and
// metrics are on; it returns the address listened on, nil when there is none.
// The allowed networks still apply there (by TCP peer address, refusing proxied
// requests), and every other path is 404.
func (f *metricsFlags) listen(ctx context.Context, m *metrics.Metrics, log *slog.Logger) (net.Addr, error) {
	if m == nil || f.addr == "" {
		return nil, nil
	}
	ln, err := net.Listen("tcp", f.addr)
	if err != nil {
		return nil, fmt.Errorf("--metrics-addr: %w", err)
	}
	mux := http.NewServeMux()
	mux.Handle("/metrics", httpx.OnlyFrom(f.networks, m.Handler()))
	mux.HandleFunc("/", httpx.NotFound)
	srv := newHTTPServer(mux, serverLimits, log)
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Error("metrics listener stopped", "error", err.Error())
		}
	}()
	go func() {
		<-ctx.Done()
		_ = srv.Close()
	}()
	return ln.Addr(), nil
}
