package merchantapi

import (
	"net/http"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/api/httpx"
)

// AcceptPayment serves POST /api/v1/invoices/{invoiceId}/payments/{paymentId}/accept:
// a set-aside payment credited to its invoice.
func (a *API) AcceptPayment(w http.ResponseWriter, r *http.Request) error {
	return a.resolvePayment(w, r, kassa.ResolutionAccepted)
}

// DismissPayment serves POST /api/v1/invoices/{invoiceId}/payments/{paymentId}/dismiss:
// a set-aside payment kept by the merchant without credit.
func (a *API) DismissPayment(w http.ResponseWriter, r *http.Request) error {
	return a.resolvePayment(w, r, kassa.ResolutionDismissed)
}

// resolvePayment decodes the optional {note} and answers the payment resolved.
func (a *API) resolvePayment(w http.ResponseWriter, r *http.Request, how kassa.Resolution) error {
	id, err := httpx.InvoiceID(r, "invoiceId")
	if err != nil {
		return err
	}
	var note string
	err = httpx.DecodeRequest(r, httpx.BodyOptional, func(f httpx.Field) (bool, error) {
		if f.Key != "note" {
			return false, nil
		}
		s, err := httpx.OptString(f)
		if s != nil {
			note = *s
		}
		return true, err
	})
	if err != nil {
		return err
	}
	rec, err := a.pay.Resolve(r.Context(), httpx.Principal(r.Context()), id, r.PathValue("paymentId"), how, note)
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, rec)
	return nil
}
