package merchantapi

import (
	"net/http"

	"kassa"
	"kassa/api/httpx"
	"kassa/payment"
)

func decodeDevnetPayment(body []byte) (payment.DevnetPayment, error) {
	var req payment.DevnetPayment
	if len(body) == 0 {
		return req, nil
	}
	fields, err := httpx.ParseObject(body, "")
	if err != nil {
		return req, err
	}
	for _, f := range fields {
		switch f.Key {
		case "amount_usd":
			if !httpx.IsNumber(f.Raw) {
				return req, httpx.ErrInvalidType("amount_usd", "a JSON number such as 12.5")
			}
			m, err := kassa.ParseUSD(string(f.Raw), "amount_usd")
			if err != nil {
				return req, err
			}
			req.Amount = &m
		case "token_id":
			n, err := httpx.Integer(f, "invalid_token")
			if err != nil {
				return req, err
			}
			req.TokenID = &n
		case "status":
			s, err := httpx.ReqString(f)
			if err != nil {
				return req, err
			}
			if s != "pending" && s != "confirmed" {
				return req, httpx.ErrInvalid("status", "invalid_status", "status must be pending or confirmed.")
			}
			req.Pending = s == "pending"
		case "tx_hash":
			if req.TxHash, err = httpx.ReqString(f); err != nil {
				return req, err
			}
			if !kassa.ValidTxHash(req.TxHash) {
				return req, httpx.ErrInvalid("tx_hash", "invalid_tx_hash", "tx_hash must be 0x followed by 64 hex digits.")
			}
		default:
			return req, httpx.ErrUnknownParam(f.Key)
		}
	}
	return req, nil
}

// DevnetPay serves POST /api/v1/devnet/invoices/{invoiceId}/payments: a simulated
// transfer fed to the same ingestion path a transfer found on chain takes.
func (a *API) DevnetPay(w http.ResponseWriter, r *http.Request) error {
	id, err := httpx.InvoiceID(r, "invoiceId")
	if err != nil {
		return err
	}
	body, err := httpx.ReadBody(r)
	if err != nil {
		return err
	}
	req, err := decodeDevnetPayment(body)
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
