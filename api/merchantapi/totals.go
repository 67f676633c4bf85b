package merchantapi

import (
	"net/http"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/api/httpx"
)

// statusTotalJSON is a count and sums of invoices, in usd_millis with decimal twins.
type statusTotalJSON struct {
	Count             int64        `json:"count"`
	Amount            kassa.Millis `json:"amount"`
	AmountDecimal     string       `json:"amount_decimal"`
	AmountPaid        kassa.Millis `json:"amount_paid"`
	AmountPaidDecimal string       `json:"amount_paid_decimal"`
}

func totalView(t kassa.StatusTotal) statusTotalJSON {
	return statusTotalJSON{Count: t.Count, Amount: t.Amount, AmountDecimal: t.Amount.Decimal(),
		AmountPaid: t.AmountPaid, AmountPaidDecimal: t.AmountPaid.Decimal()}
}

// byStatusJSON holds one total per invoice status, in lifecycle order.
type byStatusJSON struct {
	Unpaid    statusTotalJSON `json:"unpaid"`
	Underpaid statusTotalJSON `json:"underpaid"`
	Paid      statusTotalJSON `json:"paid"`
	Expired   statusTotalJSON `json:"expired"`
	Canceled  statusTotalJSON `json:"canceled"`
}

// invoiceTotalsJSON is the answer of GET /api/v1/invoices/totals.
type invoiceTotalsJSON struct {
	Object     string `json:"object"`
	Currency   string `json:"currency"`
	AmountUnit string `json:"amount_unit"`
	statusTotalJSON
	ByStatus byStatusJSON `json:"by_status"`
}

// InvoiceTotals serves GET /api/v1/invoices/totals?environment&customer_id&created_gte&created_lte.
func (a *API) InvoiceTotals(w http.ResponseWriter, r *http.Request) error {
	f, err := parseTotals(r.URL.Query(), httpx.Principal(r.Context()).MerchantID)
	if err != nil {
		return err
	}
	t, err := a.invoices.InvoiceTotals(r.Context(), f)
	if err != nil {
		return err
	}
	var all kassa.StatusTotal
	for _, st := range t.ByStatus {
		all.Count += st.Count
		all.Amount += st.Amount
		all.AmountPaid += st.AmountPaid
	}
	httpx.WriteJSON(w, http.StatusOK, invoiceTotalsJSON{
		Object: "invoice_totals", Currency: "usd", AmountUnit: "usd_millis",
		statusTotalJSON: totalView(all),
		ByStatus: byStatusJSON{
			Unpaid:    totalView(t.ByStatus[kassa.StatusUnpaid]),
			Underpaid: totalView(t.ByStatus[kassa.StatusUnderpaid]),
			Paid:      totalView(t.ByStatus[kassa.StatusPaid]),
			Expired:   totalView(t.ByStatus[kassa.StatusExpired]),
			Canceled:  totalView(t.ByStatus[kassa.StatusCanceled]),
		},
	})
	return nil
}
