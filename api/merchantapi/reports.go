package merchantapi

import (
	"bytes"
	"context"
	"io"
	"net/http"

	"kassa/api/httpx"
	"kassa/report"
)

// InvoicesCSV serves GET /api/v1/reports/invoices.csv?created_gte=&created_lte=&environment=:
// one row per invoice (decisions.md, "Merchant dashboard", Reports).
func (a *API) InvoicesCSV(w http.ResponseWriter, r *http.Request) error {
	return a.writeReport(w, r, "invoices.csv", report.Source.WriteInvoices)
}

// PaymentsCSV serves GET /api/v1/reports/payments.csv: one row per payment.
func (a *API) PaymentsCSV(w http.ResponseWriter, r *http.Request) error {
	return a.writeReport(w, r, "payments.csv", report.Source.WritePayments)
}

// writeReport runs a report into memory first, so a failure is an error answer
// rather than a cut-off file.
func (a *API) writeReport(w http.ResponseWriter, r *http.Request, name string,
	write func(report.Source, context.Context, report.Filter, io.Writer) error) error {
	f, err := parseTotals(r.URL.Query(), httpx.Principal(r.Context()).MerchantID)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := write(report.Source{Invoices: a.invoices, Payments: a.payments, Registry: a.registry}, r.Context(), f, &buf); err != nil {
		return err
	}
	httpx.WriteCSV(w, name, buf.Bytes())
	return nil
}
