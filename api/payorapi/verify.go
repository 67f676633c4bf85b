package payorapi

import (
	"net/http"

	"kassa"
	"kassa/api/httpx"
)

// Verify serves GET and POST /api/v1/invoice/{invoiceId}/verify with either a
// merchant credential (MA) or the invoice's payment session (PS). Both answer the
// invoice's current payment status (as payment-status does). POST {tx_hash, network}
// names a transfer for Kassa to look at now; it is checked for form and network, and
// until the chain watcher lands (devnet payments come through the simulation
// endpoint) the answer says it was not looked up on chain: "checked": false.
func (a *API) Verify(w http.ResponseWriter, r *http.Request) error {
	id, err := httpx.InvoiceID(r, "invoiceId")
	if err != nil {
		return err
	}
	var inv *kassa.Invoice
	if r.Header.Get("X-Session-Token") != "" || r.Header.Get("X-Signature") != "" {
		inv, err = a.session(r)
		if err == nil && inv.ID != id {
			err = kassa.NotFound("invoice") // a session opens its own invoice only
		}
	} else {
		err = a.cfg.Core.Merchant(func(_ http.ResponseWriter, r *http.Request) error {
			inv, err = a.cfg.Invoices.Invoice(r.Context(), httpx.Principal(r.Context()).MerchantID, id)
			return err
		})(w, r)
	}
	if err != nil {
		return err
	}
	if r.Method == http.MethodPost {
		if err := a.decodeVerify(r, inv); err != nil {
			return err
		}
	}
	out, err := a.cfg.Tracker.Status(r.Context(), inv)
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, map[string]any{"object": "invoice_verification", "invoice_id": inv.ID,
		"checked": false, "payment_status": out})
	return nil
}

// decodeVerify checks a verify body: {tx_hash, network}, a 32-byte hash on a network
// of the invoice's environment.
func (a *API) decodeVerify(r *http.Request, inv *kassa.Invoice) error {
	var hash, network string
	err := httpx.DecodeJSON(r, func(f httpx.Field) (known bool, err error) {
		switch f.Key {
		case "tx_hash":
			hash, err = httpx.ReqString(f)
		case "network":
			network, err = httpx.ReqString(f)
		default:
			return false, nil
		}
		return true, err
	})
	if err != nil {
		return err
	}
	if !kassa.ValidTxHash(hash) {
		return httpx.ErrInvalid("tx_hash", "invalid_tx_hash", "tx_hash must be 0x followed by 64 hex digits.")
	}
	if a.cfg.Registry == nil {
		return httpx.ErrInvalid("network", "invalid_network", "No networks are configured.")
	}
	if _, ok := a.cfg.Registry.Network(inv.Environment, network); !ok {
		return httpx.ErrInvalid("network", "invalid_network", "network must be a network of the invoice's environment.")
	}
	return nil
}
