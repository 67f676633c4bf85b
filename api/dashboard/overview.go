package dashboard

import (
	"net/http"
	"time"

	"github.com/kassapay/kassa"
)

// overviewView is the overview's figures for the session's environment.
type overviewView struct {
	Periods   []periodTotals
	Open      int64         // unpaid and underpaid now
	Attention int64         // underpaid, or with money set aside, now
	Failing   kassa.Failing // webhook deliveries retrying now or failed within failingDays
	Chart     chart
	Setup     []setupStep // nil once every step is done
	Recent    []*kassa.Invoice
}

// periodTotals are the invoices paid and the refunds made over a period, and
// their net volume.
type periodTotals struct {
	Label   string
	Paid    int64
	Refunds int64
	Volume  kassa.Millis // net of refunds
}

const (
	// chartDays is how many UTC days the volume chart shows, today included.
	chartDays = 30
	// failingDays is how far back the failing webhooks tile counts deliveries
	// that gave up: the first tile's window, longer than a delivery's ~3.3 days
	// of retries, so every delivery that fails is seen at least once.
	failingDays = 7
)

// PaidText says how many invoices were paid and refunds made: "1 paid
// invoice", "2 paid invoices, 1 refund".
func (p periodTotals) PaidText() string {
	s := plural(p.Paid, "paid invoice", "paid invoices")
	if p.Refunds > 0 {
		s += ", " + plural(p.Refunds, "refund", "refunds")
	}
	return s
}

// plural is n and the noun for it: "1 refund", "2 refunds".
func plural(n int64, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return itoa(n) + " " + many
}

// overview serves GET /dashboard.
func (d *Dashboard) overview(w http.ResponseWriter, r *http.Request, v *visit) error {
	env, now := v.env(), d.cfg.Now().UTC()
	view := overviewView{}
	today := now.Truncate(24 * time.Hour)
	first := today.AddDate(0, 0, 1-chartDays)
	days, err := d.cfg.Stats.VolumeByDay(r.Context(), v.m.ID, env, first)
	if err != nil {
		return err
	}
	view.Chart = newChart(first, chartDays, days)
	for _, p := range []struct {
		label string
		days  int
	}{{"Last 7 days", 7}, {"Last 30 days", chartDays}} {
		t := periodTotals{Label: p.label}
		for _, day := range view.Chart.Days[chartDays-p.days:] {
			t.Paid += day.Paid
			t.Refunds += day.Refunds
			t.Volume += day.Volume
		}
		view.Periods = append(view.Periods, t)
	}
	all, err := d.cfg.Invoices.InvoiceTotals(r.Context(), kassa.InvoiceTotalsFilter{MerchantID: v.m.ID, Environment: &env})
	if err != nil {
		return err
	}
	view.Open = all.ByStatus[kassa.StatusUnpaid].Count + all.ByStatus[kassa.StatusUnderpaid].Count
	if view.Attention, err = d.cfg.Stats.CountInvoices(r.Context(),
		kassa.InvoiceFilter{MerchantID: v.m.ID, Environment: &env, NeedsAttention: true}); err != nil {
		return err
	}
	if view.Failing, err = d.cfg.Stats.FailingDeliveries(r.Context(), v.m.ID, env, now.AddDate(0, 0, -failingDays)); err != nil {
		return err
	}
	if view.Setup, err = d.setup(r, v); err != nil {
		return err
	}
	recent, _, err := d.cfg.Invoices.Invoices(r.Context(), kassa.InvoiceFilter{MerchantID: v.m.ID, Environment: &env, Limit: 5})
	if err != nil {
		return err
	}
	view.Recent = recent
	d.render(w, r, http.StatusOK, "overview.html", v, view)
	return nil
}

// setupStep is one step of a new merchant's checklist, ticked from the data.
type setupStep struct {
	Text, Link, Action string
	Done               bool
}

// setup is the checklist (an API key, a webhook endpoint, a test invoice paid on
// devnet), or nil when every step is done.
func (d *Dashboard) setup(r *http.Request, v *visit) ([]setupStep, error) {
	keys, err := d.cfg.Keys.APIKeys(r.Context(), v.m.ID, "")
	if err != nil {
		return nil, err
	}
	hooks := false
	for _, env := range []kassa.Environment{kassa.Devnet, kassa.Mainnet} {
		p := v.principal()
		p.Environment = env
		eps, err := d.cfg.Webhooks.WebhookEndpoints(r.Context(), p)
		if err != nil {
			return nil, err
		}
		hooks = hooks || len(eps) > 0
	}
	devnet := kassa.Devnet
	paid, _, err := d.cfg.Invoices.Invoices(r.Context(), kassa.InvoiceFilter{MerchantID: v.m.ID, Environment: &devnet,
		Statuses: []kassa.InvoiceStatus{kassa.StatusPaid}, Limit: 1})
	if err != nil {
		return nil, err
	}
	steps := []setupStep{
		{Text: "Create an API key", Link: "/dashboard/developers/api-keys", Action: "Create a key", Done: len(keys) > 0},
		{Text: "Add a webhook endpoint", Link: "/dashboard/developers/webhooks", Action: "Add an endpoint", Done: hooks},
		{Text: "Get a test invoice paid on devnet", Link: "/dashboard/invoices/new", Action: "Create a test invoice", Done: len(paid) > 0},
	}
	for _, s := range steps {
		if !s.Done {
			return steps, nil
		}
	}
	return nil, nil
}
