// Package metrics is Kassa's Prometheus registry: every metric's definition, the
// recorders the other packages report to through their own small interfaces
// (httpx.Metrics, store.Observer, webhook.Metrics, chain.Metrics), the collectors that read the
// store, the chain watchers and the stream hub when /metrics is scraped, and the
// handler that serves the text format. No other package imports Prometheus.
//
// Every name starts with kassa_ (the Go runtime's and the process's too); labels
// are route templates, statuses, networks, tokens, scopes and outcomes, each from
// a fixed set, never an id. docs/operations.md lists them with the alerts worth
// setting, and docs/grafana-dashboard.json graphs them.
package metrics

import (
	"context"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/kassapay/kassa"
)

// Config is what the metrics need from the start.
type Config struct {
	// Registry names tokens (the token label is a symbol) and bounds the network
	// label to known networks; nil: every network is "other", every token "unknown".
	Registry kassa.Registry
	// Version is the build's version for kassa_build_info; "": the module's.
	Version string
}

// Sources are what the metrics read when /metrics is scraped (Metrics.Scrape);
// every source may be nil, and its metrics are then left out.
type Sources struct {
	// Ready is the readiness check of /readyz (the store's ping), run with the
	// scrape timeout: kassa_ready.
	Ready func(ctx context.Context) error
	// Warnings are /readyz's warnings: kassa_ready_warnings counts them.
	Warnings func() []string
	// WebhookBacklog reads the delivery queue: kassa_webhook_queue_*.
	WebhookBacklog func(ctx context.Context, now time.Time) (WebhookBacklog, error)
	// Chains lists the watchers' last steps on this instance: kassa_chain_*.
	Chains func() []ChainProgress
	// Subscribers counts the stream hub's open subscriptions.
	Subscribers func() int
	// Timeout bounds the store queries of one scrape; zero: 2 s.
	Timeout time.Duration
}

// WebhookBacklog is the delivery queue at one moment (store.WebhookBacklog).
type WebhookBacklog struct {
	Pending, Due             int64
	OldestPending, OldestDue time.Time // zero: none
}

// ChainProgress is a watcher's last completed step on this instance
// (chain.Progress).
type ChainProgress struct {
	Network         string
	Head, Processed uint64
	At              time.Time
	Current         bool // within the watch lease's term: this instance watches the network now
}

// Metrics holds the registry and every metric Kassa reports. It implements
// httpx.Metrics, store.Observer, webhook.Metrics and chain.Metrics.
type Metrics struct {
	cfg      Config
	reg      *prometheus.Registry
	networks map[string]bool // every network of the registry: the network label's values

	requests  *prometheus.CounterVec
	durations *prometheus.HistogramVec

	invoicesCreated prometheus.Counter
	transitions     *prometheus.CounterVec
	payments        *prometheus.CounterVec
	settlements     *prometheus.CounterVec

	webhookAttempts *prometheus.CounterVec
	webhookLatency  *prometheus.HistogramVec

	websockets *prometheus.GaugeVec

	chain *chainMetrics
}

// httpBuckets span a cached read (a millisecond) to a slow export (ten seconds).
var httpBuckets = []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10}

// webhookBuckets span a nearby receiver to the attempt timeout.
var webhookBuckets = []float64{.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 15}

// New builds the registry with every metric, the Go runtime's and the process's.
func New(cfg Config) *Metrics {
	m := &Metrics{cfg: cfg, reg: prometheus.NewRegistry(), networks: map[string]bool{}}
	if cfg.Registry != nil {
		for _, env := range []kassa.Environment{kassa.Devnet, kassa.Mainnet} {
			for _, n := range cfg.Registry.Networks(env) {
				m.networks[n.Name] = true
			}
		}
	}
	m.requests = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "kassa_http_requests_total",
		Help: "HTTP requests served, by route template and status."}, []string{"route", "status"})
	m.durations = prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "kassa_http_request_duration_seconds",
		Help: "Time to serve an HTTP request, by route template and status (a stream's whole life).", Buckets: httpBuckets},
		[]string{"route", "status"})
	m.invoicesCreated = prometheus.NewCounter(prometheus.CounterOpts{Name: "kassa_invoices_created_total",
		Help: "Invoices created (API and commerce checkout), counted when their transaction commits."})
	m.transitions = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "kassa_invoice_transitions_total",
		Help: "Invoice status changes, by old and new status."}, []string{"from", "to"})
	m.payments = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "kassa_payments_detected_total",
		Help: "Payments (transfers) first seen toward invoices, by network and token."}, []string{"network", "token"})
	m.settlements = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "kassa_settlements_total",
		Help: "Settlements ended, by network and outcome (settled, failed, manual)."}, []string{"network", "outcome"})
	m.webhookAttempts = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "kassa_webhook_attempts_total",
		Help: "Webhook delivery attempts, by outcome."}, []string{"outcome"})
	m.webhookLatency = prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "kassa_webhook_attempt_duration_seconds",
		Help: "Time from sending a webhook to its answer, by outcome.", Buckets: webhookBuckets}, []string{"outcome"})
	m.websockets = prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "kassa_websocket_streams_open",
		Help: "Open WebSocket event streams, by key scope."}, []string{"scope"})

	m.chain = newChainMetrics()

	m.reg.MustRegister(m.requests, m.durations, m.invoicesCreated, m.transitions, m.payments, m.settlements,
		m.webhookAttempts, m.webhookLatency, m.websockets, newBuildInfo(cfg.Version))
	m.reg.MustRegister(m.chain.collectors()...)
	kassaRuntime := prometheus.WrapRegistererWithPrefix("kassa_", m.reg)
	kassaRuntime.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	m.initSeries()
	return m
}

// Scrape adds the metrics read from src at each scrape. Call it once, after the
// sources exist and before serving.
func (m *Metrics) Scrape(src Sources) {
	if src.Timeout <= 0 {
		src.Timeout = 2 * time.Second
	}
	m.reg.MustRegister(newScrapeCollector(src))
}

// Handler serves the registry in the Prometheus text format (gzipped when the
// scraper asks). A collector's failure leaves its metrics out and serves the rest.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{ErrorHandling: promhttp.ContinueOnError})
}
