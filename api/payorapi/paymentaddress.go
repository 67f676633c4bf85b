package payorapi

import (
	"net/http"

	"kassa/api/httpx"
)

// PaymentAddress serves POST /api/v1/payments/payment-address {token_id}: it locks
// the token for the invoice and returns the deposit address on the token's network
// with the amount to send at a rate locked for kassa.QuoteLock.
func (a *API) PaymentAddress(w http.ResponseWriter, r *http.Request) error {
	tokenID, err := decodeTokenID(r)
	if err != nil {
		return err
	}
	out, err := a.cfg.Pay.LockAddress(r.Context(), sessionInvoice(r.Context()), tokenID)
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, out)
	return nil
}

func decodeTokenID(r *http.Request) (int64, error) {
	body, err := httpx.ReadBody(r)
	if err != nil {
		return 0, err
	}
	fields, err := httpx.ParseObject(body, "")
	if err != nil {
		return 0, err
	}
	var id *int64
	for _, f := range fields {
		if f.Key != "token_id" {
			return 0, httpx.ErrUnknownParam(f.Key)
		}
		n, err := httpx.Integer(f, "invalid_token")
		if err != nil {
			return 0, err
		}
		id = &n
	}
	if id == nil {
		return 0, httpx.ErrInvalid("token_id", "missing_param", "token_id is required.")
	}
	return *id, nil
}
