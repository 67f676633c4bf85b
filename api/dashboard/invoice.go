package dashboard

import (
	"html/template"
	"net/http"
	"slices"
	"strings"

	"kassa"
)

// invoiceView is an invoice's page.
type invoiceView struct {
	Inv        *kassa.Invoice
	Payments   []paymentRow
	Timeline   []timelineRow
	CanCancel  bool
	PaymentURL string       // only when just made: the link is shown once (its token is stored hashed)
	QR         template.URL // the link's QR code
	Metadata   string
}

// paymentRow is one receipt with a link to it on the network's explorer.
type paymentRow struct {
	*kassa.InvoicePayment
	TxURL, SettlementURL string
}

// timelineRow is one event of the invoice or its receipts, oldest first.
type timelineRow struct {
	At   string
	Text string
}

// invoice serves GET /dashboard/invoices/{id}: another merchant's invoice is not found.
func (d *Dashboard) invoice(w http.ResponseWriter, r *http.Request, v *visit) error {
	view, err := d.invoiceView(r, v, r.PathValue("id"))
	if err != nil {
		return err
	}
	d.render(w, r, http.StatusOK, "invoice.html", v, view)
	return nil
}

func (d *Dashboard) invoiceView(r *http.Request, v *visit, id string) (*invoiceView, error) {
	if !kassa.ValidUUID(id) {
		return nil, kassa.NotFound("invoice")
	}
	inv, err := d.cfg.Invoices.Invoice(r.Context(), v.m.ID, id)
	if err != nil {
		return nil, err
	}
	view := &invoiceView{Inv: inv, CanCancel: inv.Status == kassa.StatusUnpaid, Metadata: string(inv.Metadata)}
	receipts, err := d.cfg.Payments.InvoicePayments(r.Context(), v.m.ID, id, 100)
	if err != nil {
		return nil, err
	}
	objects := []string{id}
	for _, p := range receipts {
		row := paymentRow{InvoicePayment: p}
		if n, ok := d.cfg.Registry.Network(inv.Environment, p.Network); ok && n.ExplorerURL != "" && p.OnChain() {
			row.TxURL = strings.TrimRight(n.ExplorerURL, "/") + "/tx/" + p.TxHash
			if p.SettlementTxHash != nil {
				row.SettlementURL = strings.TrimRight(n.ExplorerURL, "/") + "/tx/" + *p.SettlementTxHash
			}
		}
		view.Payments = append(view.Payments, row)
		objects = append(objects, p.ID)
	}
	events, _, err := d.cfg.Events.Events(r.Context(), kassa.EventFilter{MerchantID: v.m.ID, Environment: inv.Environment,
		Scope: kassa.ScopeMerchant, ObjectIDs: objects, Limit: 100})
	if err != nil {
		return nil, err
	}
	slices.Reverse(events)
	for _, e := range events {
		view.Timeline = append(view.Timeline, timelineRow{At: kassa.FormatTime(e.Created), Text: describe(e.Type)})
	}
	return view, nil
}

// describe says what an event type means on a timeline.
func describe(typ string) string {
	if s, ok := eventText[typ]; ok {
		return s
	}
	return typ
}

var eventText = map[string]string{
	kassa.EventInvoiceCreated:          "Invoice created",
	kassa.EventInvoiceUpdated:          "Invoice updated",
	kassa.EventInvoicePaid:             "Paid in full",
	kassa.EventInvoicePaidAfterExpired: "Paid after it expired",
	kassa.EventInvoiceExpired:          "Expired",
	kassa.EventInvoiceCanceled:         "Canceled",
	kassa.EventPaymentCreated:          "Payment detected",
	kassa.EventPaymentUpdated:          "Payment updated: confirmations or settlement",
}

// cancelInvoice serves POST /dashboard/invoices/{id}/cancel.
func (d *Dashboard) cancelInvoice(w http.ResponseWriter, r *http.Request, v *visit) error {
	id := r.PathValue("id")
	if !kassa.ValidUUID(id) {
		return kassa.NotFound("invoice")
	}
	inv, err := d.cfg.Invoices.Invoice(r.Context(), v.m.ID, id)
	if err != nil {
		return err
	}
	p := v.principal()
	p.Environment = inv.Environment // the page shows the invoice whatever the switch says
	if _, err := d.cfg.Invoices.CancelInvoice(r.Context(), p, id); err != nil {
		return err
	}
	redirect(w, r, "/dashboard/invoices/"+id)
	return nil
}
