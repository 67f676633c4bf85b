package dashboard

import (
	"context"
	"net/http"
	"strconv"

	"kassa"
	"kassa/api/httpx"
)

// liveView is what changes on an invoice's page as money arrives, as the page's
// script receives it: texts only, which it writes with textContent.
type liveView struct {
	Status    kassa.InvoiceStatus `json:"status"`
	Label     string              `json:"status_label"` // the status in words (statusWords)
	Title     string              `json:"status_title"` // its explanation and the API's value
	Paid      string              `json:"paid"`
	Pending   string              `json:"pending"`
	CanCancel bool                `json:"can_cancel"`
	Payments  []livePayment       `json:"payments"`
	Timeline  []timelineRow       `json:"timeline"`
}

// livePayment is one row of the payments table.
type livePayment struct {
	Amount        string     `json:"amount"`
	Status        statusWord `json:"status"`
	Network       string     `json:"network"`
	TxHash        string     `json:"tx_hash"`
	TxURL         string     `json:"tx_url"`
	Confirmations string     `json:"confirmations"`
	Settlement    statusWord `json:"settlement"`
	SettlementTx  string     `json:"settlement_tx"`
	SettlementURL string     `json:"settlement_url"`
	ID            string     `json:"id"`
	CanResolve    bool       `json:"can_resolve"` // the row offers Accept and Dismiss
}

func newLiveView(view *invoiceView) liveView {
	inv := view.Inv
	st := status(kindInvoice, inv.Status)
	lv := liveView{Status: inv.Status, Label: st.Label, Title: st.Title(), Paid: inv.AmountPaid.USD() + " of " + inv.Amount.USD(), Pending: inv.AmountPending.USD(),
		CanCancel: view.CanCancel, Payments: []livePayment{}, Timeline: view.Timeline}
	if lv.Timeline == nil {
		lv.Timeline = []timelineRow{}
	}
	for _, p := range view.Payments {
		row := livePayment{Amount: p.AmountText(), Status: paymentStatus(p.InvoicePayment), Network: p.Network, TxHash: p.TxHash,
			TxURL: p.TxURL, Confirmations: strconv.Itoa(p.Confirmations), Settlement: status(kindSettlement, p.Settlement),
			SettlementURL: p.SettlementURL, ID: p.ID, CanResolve: p.CanResolve}
		if p.SettlementTxHash != nil {
			row.SettlementTx = *p.SettlementTxHash
		}
		lv.Payments = append(lv.Payments, row)
	}
	return lv
}

// invoiceLive serves GET /dashboard/invoices/{id}/live: an event stream of the
// invoice page's changing parts (liveView as JSON), sent at once and again each
// time they change (httpx.SSEView). It wakes on the merchant's events that name
// the invoice and also checks on a timer; it ends when the client leaves, the
// session ends or after httpx.SSELifetime.
func (d *Dashboard) invoiceLive(w http.ResponseWriter, r *http.Request, v *visit) error {
	id := r.PathValue("id")
	view, err := d.invoiceView(r, v, id, false)
	if err != nil {
		return err // before the stream: the error page (404 for another merchant's invoice)
	}
	httpx.SSEView{Stream: d.cfg.Stream, MerchantID: v.m.ID, Env: view.Inv.Environment, Key: id, RetryMS: 5000,
		Read: func(context.Context) (any, bool, error) {
			if _, err := d.session(r); err != nil {
				return nil, false, err // signed out meanwhile: the stream ends
			}
			view, err := d.invoiceView(r, v, id, false)
			if err != nil {
				return nil, false, err
			}
			return newLiveView(view), true, nil
		}}.Serve(w, r)
	return nil
}
