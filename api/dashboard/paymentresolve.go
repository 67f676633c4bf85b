package dashboard

import (
	"net/http"

	"github.com/kassapay/kassa"
)

// acceptPayment serves POST /dashboard/invoices/{id}/payments/{paymentId}/accept
// {note}: money set aside credited to its invoice, by the service the API's
// accept calls; then back to the invoice (303).
func (d *Dashboard) acceptPayment(w http.ResponseWriter, r *http.Request, v *visit) error {
	return d.resolvePayment(w, r, v, kassa.ResolutionAccepted)
}

// dismissPayment serves POST /dashboard/invoices/{id}/payments/{paymentId}/dismiss
// {note}: money set aside kept without credit.
func (d *Dashboard) dismissPayment(w http.ResponseWriter, r *http.Request, v *visit) error {
	return d.resolvePayment(w, r, v, kassa.ResolutionDismissed)
}

func (d *Dashboard) resolvePayment(w http.ResponseWriter, r *http.Request, v *visit, how kassa.Resolution) error {
	inv, p, err := d.ownInvoice(r, v)
	if err != nil {
		return err
	}
	if d.cfg.Pay == nil {
		return kassa.NotFound("payment")
	}
	if _, err := d.cfg.Pay.Resolve(r.Context(), p, inv.ID, r.PathValue("paymentId"), how, r.PostFormValue("note")); err != nil {
		return err
	}
	redirect(w, r, "/dashboard/invoices/"+inv.ID+"?done="+string(how)+"#payments")
	return nil
}
