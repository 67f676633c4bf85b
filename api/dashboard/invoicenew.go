package dashboard

import (
	"net/http"
	"strings"

	"github.com/kassapay/kassa"
)

// newInvoiceView is the new-invoice form, with what was typed and what is wrong.
type newInvoiceView struct {
	Amount, Description, CustomerID, CustomerEmail string
	Error, Param                                   string
}

// newInvoice serves GET /dashboard/invoices/new.
func (d *Dashboard) newInvoice(w http.ResponseWriter, r *http.Request, v *visit) error {
	d.render(w, r, http.StatusOK, "invoice_new.html", v, newInvoiceView{})
	return nil
}

// createInvoice serves POST /dashboard/invoices/new {amount_usd, description,
// customer_id, customer_email}: the invoice in the session's environment, through
// the API's rules. The answer is the invoice's page with its payment link and QR
// code, shown this once (Kassa keeps only the hash of the link's session token).
func (d *Dashboard) createInvoice(w http.ResponseWriter, r *http.Request, v *visit) error {
	form := newInvoiceView{Amount: strings.TrimSpace(r.PostFormValue("amount_usd")),
		Description: strings.TrimSpace(r.PostFormValue("description")), CustomerID: strings.TrimSpace(r.PostFormValue("customer_id")),
		CustomerEmail: strings.TrimSpace(r.PostFormValue("customer_email"))}
	c := kassa.InvoiceCreate{Description: opt(form.Description), CustomerID: opt(form.CustomerID), CustomerEmail: opt(form.CustomerEmail)}
	amount, err := kassa.ParseUSD(form.Amount, "amount_usd")
	if err == nil {
		c.Amount = amount
		err = c.Validate()
	}
	var inv *kassa.Invoice
	var token string
	if err == nil {
		inv, token, err = d.cfg.Invoices.CreateInvoice(r.Context(), v.principal(), c, nil)
	}
	if err != nil {
		if kassa.ErrorKindOf(err) != kassa.KindInvalid && kassa.ErrorKindOf(err) != kassa.KindPermission {
			return err
		}
		e := kassa.AsError(err)
		form.Error, form.Param = formMessage(err), e.Param
		d.render(w, r, http.StatusBadRequest, "invoice_new.html", v, form)
		return nil
	}
	view, err := d.invoiceView(r, v, inv.ID, true)
	if err != nil {
		return err
	}
	view.PaymentURL = d.cfg.Signer.PaymentURL(d.cfg.PublicURL, inv.ID, token)
	view.QR = qrData(view.PaymentURL)
	d.render(w, r, http.StatusCreated, "invoice.html", v, view)
	return nil
}

// opt is nil for an empty form field.
func opt(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
