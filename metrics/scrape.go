package metrics

import (
	"context"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// scrapeCollector reads, when /metrics is scraped, what is cheaper to read then
// than to keep up to date: readiness, the webhook queue, the chain watchers' last
// steps (head, processed block, lag, age) and the stream hub's subscribers. Its store queries share one timeout, so
// a slow store delays a scrape by at most that, and a failed query leaves its
// metrics out rather than failing the scrape.
type scrapeCollector struct {
	src Sources

	ready, warnings                                *prometheus.Desc
	queueDepth, queueOldestPending, queueOldestDue *prometheus.Desc
	chainLag, chainStepAge                         *prometheus.Desc
	chainHead, chainProcessed                      *prometheus.Desc
	subscribers                                    *prometheus.Desc
}

func newScrapeCollector(src Sources) *scrapeCollector {
	d := prometheus.NewDesc
	return &scrapeCollector{src: src,
		ready: d("kassa_ready", "1 while /readyz would answer 200 (the store answers), else 0.", nil, nil),
		warnings: d("kassa_ready_warnings", "Warnings /readyz lists now (a short gas wallet, the PostgreSQL listener down).",
			nil, nil),
		queueDepth: d("kassa_webhook_queue_depth",
			"Pending webhook deliveries: due now (waiting for a worker) or scheduled (waiting for a retry). Shared by every instance on one database.",
			[]string{"state"}, nil),
		queueOldestPending: d("kassa_webhook_queue_oldest_pending_age_seconds",
			"Age of the oldest pending webhook delivery (retries of a failing endpoint included); 0 when none.", nil, nil),
		queueOldestDue: d("kassa_webhook_queue_oldest_due_age_seconds",
			"How long the longest-waiting due webhook delivery has been due: how far the workers are behind; 0 when none.",
			nil, nil),
		chainLag: d("kassa_chain_head_lag_blocks",
			"Blocks between the node's head and the last block the watcher read, at its last step; only from the instance watching the network now.",
			[]string{"network"}, nil),
		chainStepAge: d("kassa_chain_last_step_age_seconds",
			"Seconds since this instance's watcher of the network last completed a step; absent if it never did.",
			[]string{"network"}, nil),
		chainHead: d("kassa_chain_head_block",
			"The node's head block at the watcher's last step; only from the instance watching the network now.",
			[]string{"network"}, nil),
		chainProcessed: d("kassa_chain_processed_block",
			"The last block the watcher read (its cursor) at its last step; only from the instance watching the network now.",
			[]string{"network"}, nil),
		subscribers: d("kassa_stream_subscribers",
			"Open subscriptions to the live event stream: WebSocket streams, payment pages and dashboard pages.", nil, nil),
	}
}

// Describe sends every descriptor.
func (c *scrapeCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{c.ready, c.warnings, c.queueDepth, c.queueOldestPending, c.queueOldestDue,
		c.chainLag, c.chainStepAge, c.chainHead, c.chainProcessed, c.subscribers} {
		ch <- d
	}
}

// Collect reads the sources and sends their metrics.
func (c *scrapeCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), c.src.Timeout)
	defer cancel()
	gauge := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, labels...)
	}
	up := true
	if c.src.Ready != nil {
		up = c.src.Ready(ctx) == nil
		gauge(c.ready, boolValue(up))
	}
	if c.src.Warnings != nil {
		gauge(c.warnings, float64(len(c.src.Warnings())))
	}
	now := time.Now()
	if c.src.WebhookBacklog != nil && up {
		if b, err := c.src.WebhookBacklog(ctx, now); err == nil {
			gauge(c.queueDepth, float64(b.Due), "due")
			gauge(c.queueDepth, float64(b.Pending-b.Due), "scheduled")
			gauge(c.queueOldestPending, age(now, b.OldestPending))
			gauge(c.queueOldestDue, age(now, b.OldestDue))
		}
	}
	if c.src.Chains != nil {
		for _, p := range c.src.Chains() {
			if p.Current {
				gauge(c.chainLag, float64(p.Head-min(p.Processed, p.Head)), p.Network)
				gauge(c.chainHead, float64(p.Head), p.Network)
				gauge(c.chainProcessed, float64(p.Processed), p.Network)
			}
			gauge(c.chainStepAge, now.Sub(p.At).Seconds(), p.Network)
		}
	}
	if c.src.Subscribers != nil {
		gauge(c.subscribers, float64(c.src.Subscribers()))
	}
}

// age is how long before now t was, in seconds; 0 for the zero time or a future one.
func age(now, t time.Time) float64 {
	if t.IsZero() || t.After(now) {
		return 0
	}
	return now.Sub(t).Seconds()
}

func boolValue(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
