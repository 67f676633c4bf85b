package payorapi

import (
	"net/http"

	"github.com/kassapay/kassa/api/httpx"
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
	var id *int64
	err := httpx.DecodeJSON(r, func(f httpx.Field) (bool, error) {
		if f.Key != "token_id" {
			return false, nil
		}
		n, err := httpx.Integer(f, "invalid_token")
		id = &n
		return true, err
	})
	if err != nil {
		return 0, err
	}
	if id == nil {
		return 0, httpx.ErrInvalid("token_id", "missing_param", "token_id is required.")
	}
	return *id, nil
}
