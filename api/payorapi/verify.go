package payorapi

import (
	"net/http"

	"github.com/kassapay/kassa/api/httpx"
	"github.com/kassapay/kassa/payment"
)

// Verify serves GET and POST /api/v1/invoice/{invoiceId}/verify with either a
// merchant credential (MA) or the invoice's payment session (PS): it checks the
// credential, decodes the body and asks payment.Service.Verify, which owns the
// rest (which invoice, the look-up on chain, "checked"). With a session, a
// request is limited as the payor API's (per client address and per session) and
// a POST by verify's tighter buckets too; with a merchant credential a POST takes
// verify's per-client bucket of it. See docs/decisions.md.
func (a *API) Verify(w http.ResponseWriter, r *http.Request) error {
	id, err := httpx.InvoiceID(r, "invoiceId")
	if err != nil {
		return err
	}
	req := payment.VerifyRequest{InvoiceID: id}
	if r.Method == http.MethodPost {
		req.Transfer = func() (payment.VerifyTransfer, error) { return decodeVerify(r) }
	}
	if r.Header.Get("X-Session-Token") != "" || r.Header.Get("X-Signature") != "" {
		req.Session, err = a.session(w, r, r.Method == http.MethodPost) // a POST takes verify's buckets too
	} else {
		err = a.cfg.Core.Merchant(func(w http.ResponseWriter, r *http.Request) error {
			if r.Method == http.MethodPost {
				if err := a.cfg.Core.LimitVerifyPrincipal(w, r); err != nil {
					return err
				}
			}
			req.MerchantID = httpx.Principal(r.Context()).MerchantID
			return nil
		})(w, r)
	}
	if err != nil {
		return err
	}
	out, err := a.cfg.Pay.Verify(r.Context(), req)
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, out)
	return nil
}

// decodeVerify reads a verify body, {tx_hash, network}; payment.Service.Verify
// checks what they hold.
func decodeVerify(r *http.Request) (out payment.VerifyTransfer, err error) {
	err = httpx.DecodeJSON(r, func(f httpx.Field) (known bool, err error) {
		switch f.Key {
		case "tx_hash":
			out.TxHash, err = httpx.ReqString(f)
		case "network":
			out.Network, err = httpx.ReqString(f)
		default:
			return false, nil
		}
		return true, err
	})
	return out, err
}
