package dashboard

import (
	"net/http"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/api/httpx"
	"github.com/kassapay/kassa/report"
)

// reportsView is the reports page: the date range of the downloads.
type reportsView struct {
	From, To string
	Query    string // the range as the download links' query
	Env      kassa.Environment
}

// reports serves GET /dashboard/reports?created_gte=&created_lte= (dates): the
// links to the CSV exports of the session's environment over that range.
func (d *Dashboard) reports(w http.ResponseWriter, r *http.Request, v *visit) error {
	q := r.URL.Query()
	view := reportsView{From: q.Get("created_gte"), To: q.Get("created_lte"), Query: r.URL.RawQuery, Env: v.env()}
	var f kassa.InvoiceFilter
	if msg := createdRange(&f, "", view.From, view.To, d.cfg.Now()); msg != "" {
		return kassa.Invalidf("created_gte", "invalid_date", "%s", msg)
	}
	d.render(w, r, http.StatusOK, "reports.html", v, view)
	return nil
}

// reportCSV serves GET /dashboard/reports/{name} (invoices.csv, payments.csv,
// refunds.csv): the same exports as /api/v1/reports/*, for the session's
// environment.
func (d *Dashboard) reportCSV(w http.ResponseWriter, r *http.Request, v *visit) error {
	q := r.URL.Query()
	var f kassa.InvoiceFilter
	if msg := createdRange(&f, "", q.Get("created_gte"), q.Get("created_lte"), d.cfg.Now()); msg != "" {
		return kassa.Invalidf("created_gte", "invalid_date", "%s", msg)
	}
	env := v.env()
	rep, err := d.cfg.Reports.Run(r.Context(), r.PathValue("name"),
		report.Filter{MerchantID: v.m.ID, Environment: &env, CreatedGTE: f.CreatedGTE, CreatedLTE: f.CreatedLTE})
	if err != nil {
		return err
	}
	defer rep.Close()
	httpx.WriteCSV(w, r.PathValue("name"), rep)
	return nil
}
