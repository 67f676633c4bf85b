package merchantapi

import (
	"net/http"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/api/httpx"
	"github.com/kassapay/kassa/payment"
)

// decodeDevnetPayment reads {amount_usd?, token_id?, status?, tx_hash?}; the body
// is optional.
func decodeDevnetPayment(r *http.Request) (payment.DevnetPayment, error) {
	var req payment.DevnetPayment
	err := httpx.DecodeRequest(r, httpx.BodyOptional, func(f httpx.Field) (bool, error) {
		switch f.Key {
		case "amount_usd":
			if !httpx.IsNumber(f.Raw) {
				return true, httpx.ErrInvalidType("amount_usd", "a JSON number such as 12.5")
			}
			m, err := kassa.ParseUSD(string(f.Raw), "amount_usd")
			if err != nil {
				return true, err
			}
			req.Amount = &m
		case "token_id":
			n, err := httpx.Integer(f, "invalid_token")
			if err != nil {
				return true, err
			}
			req.TokenID = &n
		case "status":
			s, err := httpx.ReqString(f)
			if err != nil {
				return true, err
			}
			if s != "pending" && s != "confirmed" {
				return true, httpx.ErrInvalid("status", "invalid_status", "status must be pending or confirmed.")
			}
			req.Pending = s == "pending"
		case "tx_hash":
			var err error
			if req.TxHash, err = httpx.ReqString(f); err != nil {
				return true, err
			}
			if !kassa.ValidTxHash(req.TxHash) {
				return true, httpx.ErrInvalid("tx_hash", "invalid_tx_hash", "tx_hash must be 0x followed by 64 hex digits.")
			}
		default:
			return false, nil
		}
		return true, nil
	})
	return req, err
}

// DevnetPay serves POST /api/v1/devnet/invoices/{invoiceId}/payments: a simulated
// transfer fed to the same ingestion path a transfer found on chain takes.
func (a *API) DevnetPay(w http.ResponseWriter, r *http.Request) error {
	id, err := httpx.InvoiceID(r, "invoiceId")
	if err != nil {
		return err
	}
	req, err := decodeDevnetPayment(r)
	if err != nil {
		return err
	}
	rec, inv, err := a.pay.DevnetPay(r.Context(), httpx.Principal(r.Context()).MerchantID, id, req)
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusCreated, map[string]any{"object": "devnet_payment", "payment": rec, "invoice": inv})
	return nil
}
