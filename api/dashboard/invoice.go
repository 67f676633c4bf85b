package dashboard

import (
	"html/template"
	"net/http"
	"slices"
	"strings"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/refund"
)

// invoiceView is an invoice's page. The parts that change as money arrives
// (status, amounts, payments, timeline) are also sent as JSON to the live page.
type invoiceView struct {
	Inv        *kassa.Invoice
	Payments   []paymentRow
	Timeline   []timelineRow
	Deliveries []deliveryRow
	Refunds    []refundRow    // newest first
	OwnWallet  []ownWalletRow // refunds Kassa cannot pay yet, and those the merchant pays (refundownwallet.go)
	CanCancel  bool
	CanRefund  bool         // confirmed money is still refundable: the invoice's Refund action
	PaymentURL string       // only when just made: the link is shown once (its token is stored hashed)
	QR         template.URL // the link's QR code
	Metadata   string
	Notice     string
}

// paymentRow is one receipt with links to it and its settlement on the
// network's explorer ("" when the network has none or the payment is simulated).
type paymentRow struct {
	*kassa.Payment
	TxURL, SettlementURL string
	Token                string // the amount in the token, "0.0125 ETH"; "" when the registry no longer has it
	CanResolve           bool   // set aside and unresolved, no refund under way: the merchant may accept or dismiss it
	CanRefund            bool   // set aside and unresolved, something left to refund: the row's Refund action
}

// AmountText is the receipt's amount as a merchant reads it: the token amount
// with its USD value beside it, "0.0125 ETH ($25.00)".
func (p paymentRow) AmountText() string {
	if p.Token == "" {
		return p.AmountUSD.USD()
	}
	return p.Token + " (" + p.AmountUSD.USD() + ")"
}

// deliveryRow is one webhook delivery with its endpoint's URL ("" when the
// endpoint was deleted).
type deliveryRow struct {
	*kassa.WebhookDelivery
	EndpointURL string
}

// invoice serves GET /dashboard/invoices/{id}: another merchant's invoice is not found.
func (d *Dashboard) invoice(w http.ResponseWriter, r *http.Request, v *visit) error {
	view, err := d.invoiceView(r, v, r.PathValue("id"), true)
	if err != nil {
		return err
	}
	switch r.URL.Query().Get("done") {
	case "resent":
		view.Notice = "The event was queued again: see its delivery below."
	case string(kassa.ResolutionAccepted):
		view.Notice = "The payment was accepted: it counts toward the invoice and settles to you."
	case string(kassa.ResolutionDismissed):
		view.Notice = "The payment was dismissed: you keep it without crediting the invoice; it settles to you."
	case "refunding":
		view.Notice = "This refund form was sent twice; the first is being made: see the refunds below."
	}
	d.render(w, r, http.StatusOK, "invoice.html", v, view)
	return nil
}

// invoiceView reads the invoice, its receipts and its timeline, and with
// deliveries its webhook deliveries too.
func (d *Dashboard) invoiceView(r *http.Request, v *visit, id string, deliveries bool) (*invoiceView, error) {
	if !kassa.ValidUUID(id) {
		return nil, kassa.NotFound("invoice")
	}
	// The invoice read with its receipts never lags them.
	inv, receipts, err := d.cfg.Payments.InvoiceWithPayments(r.Context(), v.m.ID, id, 100)
	if err != nil {
		return nil, err
	}
	view := &invoiceView{Inv: inv, CanCancel: inv.Status == kassa.StatusUnpaid, Metadata: string(inv.Metadata)}
	var refunds []*kassa.Refund
	if d.cfg.Refunds != nil {
		p := v.principal()
		p.Environment = inv.Environment
		if refunds, err = d.cfg.Refunds.List(r.Context(), p, id); err != nil {
			return nil, err
		}
		for _, ref := range refunds {
			view.Refunds = append(view.Refunds, d.refundRow(inv, ref))
		}
		// What the buttons offer is the refund rule's own answer (refund.Refundable).
		_, err := refund.Refundable(receipts, refunds, refund.Request{Rate: kassa.RefundRatePaid})
		view.CanRefund = err == nil
	}
	objects := []string{id}
	for _, p := range receipts {
		row := d.paymentRow(inv, p)
		if row.CanResolve && d.cfg.Refunds != nil {
			_, err := refund.Refundable(receipts, refunds, refund.Request{PaymentID: p.ID, Rate: kassa.RefundRatePaid})
			row.CanRefund = err == nil
			for _, ref := range refunds {
				if ref.PaymentID == p.ID && ref.Status.Counts() {
					row.CanResolve = false // accept and dismiss refuse it: payment_being_refunded
				}
			}
		}
		row.CanResolve = row.CanResolve && d.cfg.Pay != nil
		view.Payments = append(view.Payments, row)
		objects = append(objects, p.ID)
	}
	events, _, err := d.cfg.Events.Events(r.Context(), kassa.EventFilter{MerchantID: v.m.ID, Environment: inv.Environment,
		Scope: kassa.ScopeMerchant, ObjectIDs: objects, Limit: 100})
	if err != nil {
		return nil, err
	}
	slices.Reverse(events)
	view.Timeline = timeline(events, inv.LockedTokenID != nil)
	eventIDs := make([]string, len(events))
	for i, e := range events {
		eventIDs[i] = e.ID
	}
	if deliveries { // the whole page; the live updates carry neither
		if view.OwnWallet, err = d.ownWalletRows(r, v.principal(), inv); err != nil {
			return nil, err
		}
		p := v.principal()
		p.Environment = inv.Environment
		if view.Deliveries, err = d.deliveryRows(r, p, eventIDs); err != nil {
			return nil, err
		}
	}
	return view, nil
}

// paymentRow is receipt p of inv with its explorer links.
func (d *Dashboard) paymentRow(inv *kassa.Invoice, p *kassa.Payment) paymentRow {
	row := paymentRow{Payment: p, CanResolve: p.Resolvable()}
	if t, ok := d.cfg.Registry.Token(inv.Environment, p.TokenID); ok && p.AmountUnits != nil {
		row.Token = kassa.FormatUnits(p.AmountUnits, t.Decimals) + " " + t.Symbol
	}
	if n, ok := d.cfg.Registry.Network(inv.Environment, p.Network); ok && n.ExplorerURL != "" && p.OnChain() {
		base := strings.TrimRight(n.ExplorerURL, "/") + "/tx/"
		row.TxURL = base + p.TxHash
		if p.SettlementTxHash != nil {
			row.SettlementURL = base + *p.SettlementTxHash
		}
	}
	return row
}

// cancelInvoice serves POST /dashboard/invoices/{id}/cancel.
func (d *Dashboard) cancelInvoice(w http.ResponseWriter, r *http.Request, v *visit) error {
	inv, p, err := d.ownInvoice(r, v)
	if err != nil {
		return err
	}
	if _, err := d.cfg.Invoices.CancelInvoice(r.Context(), p, inv.ID); err != nil {
		return err
	}
	redirect(w, r, "/dashboard/invoices/"+inv.ID)
	return nil
}

// resendDelivery serves POST /dashboard/invoices/{id}/resend {event_id,
// endpoint_id}: the event queued again for that endpoint, by the service the
// API's resend calls; then back to the invoice (303).
func (d *Dashboard) resendDelivery(w http.ResponseWriter, r *http.Request, v *visit) error {
	inv, p, err := d.ownInvoice(r, v)
	if err != nil {
		return err
	}
	if _, err := d.cfg.Webhooks.ResendEvent(r.Context(), p, r.PostFormValue("event_id"), r.PostFormValue("endpoint_id")); err != nil {
		return err
	}
	redirect(w, r, "/dashboard/invoices/"+inv.ID+"?done=resent#deliveries")
	return nil
}

// ownInvoice finds the path's invoice among the merchant's, and the principal
// that acts on it: its own environment, whatever the switch says.
func (d *Dashboard) ownInvoice(r *http.Request, v *visit) (*kassa.Invoice, kassa.Principal, error) {
	id := r.PathValue("id")
	if !kassa.ValidUUID(id) {
		return nil, kassa.Principal{}, kassa.NotFound("invoice")
	}
	inv, err := d.cfg.Invoices.Invoice(r.Context(), v.m.ID, id)
	if err != nil {
		return nil, kassa.Principal{}, err
	}
	p := v.principal()
	p.Environment = inv.Environment
	return inv, p, nil
}

// deliveryRows are the webhook deliveries of the events, each with its
// endpoint's URL: a merchant knows endpoints by their address, not their id.
func (d *Dashboard) deliveryRows(r *http.Request, p kassa.Principal, eventIDs []string) ([]deliveryRow, error) {
	ds, err := d.cfg.Stats.EventDeliveries(r.Context(), p, eventIDs, 50)
	if err != nil || len(ds) == 0 {
		return nil, err
	}
	eps, err := d.cfg.Webhooks.WebhookEndpoints(r.Context(), p)
	if err != nil {
		return nil, err
	}
	urls := make(map[string]string, len(eps))
	for _, ep := range eps {
		urls[ep.ID] = ep.URL
	}
	rows := make([]deliveryRow, len(ds))
	for i, dl := range ds {
		rows[i] = deliveryRow{WebhookDelivery: dl, EndpointURL: urls[dl.EndpointID]}
	}
	return rows, nil
}
