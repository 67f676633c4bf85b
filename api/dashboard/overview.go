package dashboard

import (
	"net/http"
	"time"

	"kassa"
)

// overviewView is the overview's figures for the session's environment.
type overviewView struct {
	Periods   []periodTotals
	Open      int64 // unpaid and underpaid now
	Attention int64 // underpaid now
	Recent    []*kassa.Invoice
}

// periodTotals are the paid invoices and their volume over a period.
type periodTotals struct {
	Label  string
	Paid   int64
	Volume kassa.Millis
}

// overview serves GET /dashboard.
func (d *Dashboard) overview(w http.ResponseWriter, r *http.Request, v *visit) error {
	env, now := v.env(), d.cfg.Now()
	view := overviewView{}
	for _, p := range []struct {
		label string
		days  int
	}{{"Last 7 days", 7}, {"Last 30 days", 30}} {
		since := now.Add(-time.Duration(p.days) * 24 * time.Hour)
		t, err := d.cfg.Invoices.InvoiceTotals(r.Context(), kassa.InvoiceTotalsFilter{MerchantID: v.m.ID, Environment: &env, CreatedGTE: &since})
		if err != nil {
			return err
		}
		paid := t.ByStatus[kassa.StatusPaid]
		view.Periods = append(view.Periods, periodTotals{Label: p.label, Paid: paid.Count, Volume: paid.AmountPaid})
	}
	all, err := d.cfg.Invoices.InvoiceTotals(r.Context(), kassa.InvoiceTotalsFilter{MerchantID: v.m.ID, Environment: &env})
	if err != nil {
		return err
	}
	view.Open = all.ByStatus[kassa.StatusUnpaid].Count + all.ByStatus[kassa.StatusUnderpaid].Count
	view.Attention = all.ByStatus[kassa.StatusUnderpaid].Count
	recent, _, err := d.cfg.Invoices.Invoices(r.Context(), kassa.InvoiceFilter{MerchantID: v.m.ID, Environment: &env, Limit: 5})
	if err != nil {
		return err
	}
	view.Recent = recent
	d.render(w, r, http.StatusOK, "overview.html", v, view)
	return nil
}
