package dashboard

import (
	"context"
	"net/http"
	"strconv"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/api/httpx"
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
	Refunded  string              `json:"refunded"`   // amount_refunded
	CanRefund bool                `json:"can_refund"` // the invoice's Refund action
	Payments  []livePayment       `json:"payments"`
	Refunds   []liveRefund        `json:"refunds"` // newest first
	Timeline  []timelineRow       `json:"timeline"`
}

// liveRefund is one refund of the invoice's list (assets/refunds.tmpl).
type liveRefund struct {
	ID      string     `json:"id"`
	Page    string     `json:"page"`
	Amount  string     `json:"amount"`
	Status  statusWord `json:"status"`
	To      string     `json:"to"` // the address; "" : a claim link
	TxHash  string     `json:"tx_hash"`
	TxURL   string     `json:"tx_url"`
	Failure string     `json:"failure"`
	Created string     `json:"created"`
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
	CanRefund     bool       `json:"can_refund"`  // the row offers Refund
}

func newLiveView(view *invoiceView) liveView {
	inv := view.Inv
	st := status(kindInvoice, inv.Status)
	lv := liveView{Status: inv.Status, Label: st.Label, Title: st.Title(), Paid: inv.AmountPaid.USD() + " of " + inv.Amount.USD(), Pending: inv.AmountPending.USD(),
		CanCancel: view.CanCancel, Refunded: inv.AmountRefunded.USD(), CanRefund: view.CanRefund, Payments: []livePayment{},
		Refunds: []liveRefund{}, Timeline: view.Timeline}
	if lv.Timeline == nil {
		lv.Timeline = []timelineRow{}
	}
	for _, p := range view.Payments {
		row := livePayment{Amount: p.AmountText(), Status: paymentStatus(p.InvoicePayment), Network: p.Network, TxHash: p.TxHash,
			TxURL: p.TxURL, Confirmations: strconv.Itoa(p.Confirmations), Settlement: paymentSettlement(p.InvoicePayment),
			SettlementURL: p.SettlementURL, ID: p.ID, CanResolve: p.CanResolve, CanRefund: p.CanRefund}
		if p.SettlementTxHash != nil {
			row.SettlementTx = *p.SettlementTxHash
		}
		lv.Payments = append(lv.Payments, row)
	}
	for _, f := range view.Refunds {
		lv.Refunds = append(lv.Refunds, liveRefund{ID: f.ID, Page: f.Page, Amount: f.AmountText(), Status: f.Status, To: f.Address,
			TxHash: f.TxHash, TxURL: f.TxURL, Failure: f.FailureReason, Created: kassa.FormatTime(f.CreatedAt)})
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
