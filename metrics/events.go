package metrics

import (
	"time"

	"github.com/kassapay/kassa"
)

// Labels for values outside the fixed sets: a network the registry does not
// list, a token it does not know.
const (
	otherNetwork = "other"
	unknownToken = "unknown"
)

// InvoiceCreated counts a committed invoice (store.Observer).
func (m *Metrics) InvoiceCreated() { m.invoicesCreated.Inc() }

// InvoiceMoved counts a committed status change (store.Observer).
func (m *Metrics) InvoiceMoved(from, to kassa.InvoiceStatus) {
	if !from.Valid() || !to.Valid() {
		return
	}
	m.transitions.WithLabelValues(string(from), string(to)).Inc()
}

// PaymentDetected counts a new receipt (store.Observer), labelled with its
// network and its token's symbol.
func (m *Metrics) PaymentDetected(env kassa.Environment, network string, tokenID int64) {
	token := unknownToken
	if m.cfg.Registry != nil {
		if t, ok := m.cfg.Registry.Token(env, tokenID); ok {
			token = t.Symbol
		}
	}
	m.payments.WithLabelValues(m.network(network), token).Inc()
}

// SettlementFinished counts a settlement's end (store.Observer).
func (m *Metrics) SettlementFinished(network string, status kassa.SettlementStatus) {
	switch status {
	case kassa.SettlementSettled, kassa.SettlementFailed, kassa.SettlementManual:
		m.settlements.WithLabelValues(m.network(network), string(status)).Inc()
	}
}

// WebhookAttempt counts a delivery attempt and its latency (webhook.Metrics).
func (m *Metrics) WebhookAttempt(outcome string, took time.Duration) {
	m.webhookAttempts.WithLabelValues(outcome).Inc()
	m.webhookLatency.WithLabelValues(outcome).Observe(took.Seconds())
}

// network is the network label: a known network's name, else "other".
func (m *Metrics) network(name string) string {
	if m.networks[name] {
		return name
	}
	return otherNetwork
}

// transitionsKnown are the status changes the lifecycle makes (kassa.NextStatus,
// cancel and expiry), created at zero so that rates work from the first scrape.
var transitionsKnown = [][2]kassa.InvoiceStatus{
	{kassa.StatusUnpaid, kassa.StatusUnderpaid}, {kassa.StatusUnpaid, kassa.StatusPaid},
	{kassa.StatusUnpaid, kassa.StatusExpired}, {kassa.StatusUnpaid, kassa.StatusCanceled},
	{kassa.StatusUnderpaid, kassa.StatusPaid}, {kassa.StatusUnderpaid, kassa.StatusExpired},
	{kassa.StatusUnderpaid, kassa.StatusUnpaid},
}

// webhookOutcomes are webhook.Outcome's values (kept here so this package does
// not import the webhook worker).
var webhookOutcomes = []string{"success", "http_4xx", "http_5xx", "http_other", "timeout", "error"}

// initSeries creates the series of every known label value at zero: a counter
// that first appears at 1 hides its first increase from rate() and increase().
func (m *Metrics) initSeries() {
	for _, t := range transitionsKnown {
		m.transitions.WithLabelValues(string(t[0]), string(t[1]))
	}
	for _, o := range webhookOutcomes {
		m.webhookAttempts.WithLabelValues(o)
		m.webhookLatency.WithLabelValues(o)
	}
	for _, s := range []kassa.Scope{kassa.ScopeMerchant, kassa.ScopeCommerce} {
		m.websockets.WithLabelValues(string(s))
	}
	if m.cfg.Registry == nil {
		return
	}
	m.chain.initNetworks(m.cfg.Registry)
	for _, env := range []kassa.Environment{kassa.Devnet, kassa.Mainnet} {
		for _, t := range m.cfg.Registry.Tokens(env) {
			m.payments.WithLabelValues(m.network(t.Network), t.Symbol)
		}
		for _, n := range m.cfg.Registry.Networks(env) {
			for _, s := range []kassa.SettlementStatus{kassa.SettlementSettled, kassa.SettlementFailed, kassa.SettlementManual} {
				m.settlements.WithLabelValues(n.Name, string(s))
			}
		}
	}
}
