package merchantapi

import (
	"net/http"

	"github.com/kassapay/kassa/api/httpx"
)

// InvoicesCSV serves GET /api/v1/reports/invoices.csv?created_gte=&created_lte=&environment=:
// one row per invoice (decisions.md, "Merchant dashboard", Reports).
func (a *API) InvoicesCSV(w http.ResponseWriter, r *http.Request) error {
	return a.writeReport(w, r, "invoices.csv")
}

// PaymentsCSV serves GET /api/v1/reports/payments.csv: one row per payment and
// one per refund (type refund, amounts negative).
func (a *API) PaymentsCSV(w http.ResponseWriter, r *http.Request) error {
	return a.writeReport(w, r, "payments.csv")
}

// RefundsCSV serves GET /api/v1/reports/refunds.csv: one row per refund.
func (a *API) RefundsCSV(w http.ResponseWriter, r *http.Request) error {
	return a.writeReport(w, r, "refunds.csv")
}

// writeReport runs a report to its end first (report.Source.Run), so a failure
// is an error answer rather than a cut-off file, then streams it.
func (a *API) writeReport(w http.ResponseWriter, r *http.Request, name string) error {
	f, err := parseTotals(r.URL.Query(), httpx.Principal(r.Context()).MerchantID)
	if err != nil {
		return err
	}
	rep, err := a.reports.Run(r.Context(), name, f)
	if err != nil {
		return err
	}
	defer rep.Close()
	httpx.WriteCSV(w, name, rep)
	return nil
}
