package payorapi

import (
	"net/http"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/api/httpx"
)

// Verify serves GET and POST /api/v1/invoice/{invoiceId}/verify with either a
// merchant credential (MA) or the invoice's payment session (PS). Both answer the
// invoice's current payment status (as payment-status does). POST {tx_hash, network}
// names a transfer for Kassa to look at now: on a watched network it is looked up
// over RPC at once and any transfer in it to the invoice's deposit address is
// ingested as the watcher would ("checked": true); on a network without a watcher
// it is only checked for form ("checked": false). GET answers "checked": true when
// every payment of the invoice was seen on chain (none yet: when its locked
// network is watched). With a session, a request is limited as the payor API's
// (per client address and per session) and a POST by verify's tighter buckets too;
// with a merchant credential a POST takes verify's per-client bucket of it.
// See docs/decisions.md.
func (a *API) Verify(w http.ResponseWriter, r *http.Request) error {
	id, err := httpx.InvoiceID(r, "invoiceId")
	if err != nil {
		return err
	}
	var inv *kassa.Invoice
	if r.Header.Get("X-Session-Token") != "" || r.Header.Get("X-Signature") != "" {
		inv, err = a.session(w, r, r.Method == http.MethodPost) // a POST takes verify's buckets too
		if err == nil && inv.ID != id {
			err = kassa.NotFound("invoice") // a session opens its own invoice only
		}
	} else {
		err = a.cfg.Core.Merchant(func(w http.ResponseWriter, r *http.Request) error {
			if r.Method == http.MethodPost {
				if err := a.cfg.Core.LimitVerifyPrincipal(w, r); err != nil {
					return err
				}
			}
			inv, err = a.cfg.Invoices.Invoice(r.Context(), httpx.Principal(r.Context()).MerchantID, id)
			return err
		})(w, r)
	}
	if err != nil {
		return err
	}
	checked := false
	if r.Method == http.MethodPost {
		if checked, err = a.verifyPost(r, inv); err != nil {
			return err
		}
		if checked { // the lookup may have paid it
			if inv, err = a.cfg.Invoices.Invoice(r.Context(), inv.MerchantID, inv.ID); err != nil {
				return err
			}
		}
	} else if checked, err = a.seenOnChain(r, inv); err != nil {
		return err
	}
	out, err := a.cfg.Tracker.Status(r.Context(), inv)
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, map[string]any{"object": "invoice_verification", "invoice_id": inv.ID,
		"checked": checked, "payment_status": out})
	return nil
}

// verifyPost decodes a verify body and, on a watched network, looks the
// transaction up now; it reports whether it did.
func (a *API) verifyPost(r *http.Request, inv *kassa.Invoice) (bool, error) {
	hash, network, err := a.decodeVerify(r, inv)
	if err != nil || a.cfg.Pay == nil || !a.cfg.Pay.Watched(inv.Environment, network) {
		return false, err
	}
	return true, a.cfg.Pay.Chain.VerifyTransaction(r.Context(), inv, network, hash)
}

// seenOnChain reports whether every payment of inv was seen in a block (none yet:
// whether its locked token's network is watched).
func (a *API) seenOnChain(r *http.Request, inv *kassa.Invoice) (bool, error) {
	rs, err := a.cfg.Tracker.Receipts(r.Context(), inv)
	if err != nil || a.cfg.Pay == nil {
		return false, err
	}
	if len(rs) == 0 {
		if inv.LockedTokenID == nil || a.cfg.Registry == nil {
			return false, nil
		}
		t, ok := a.cfg.Registry.Token(inv.Environment, *inv.LockedTokenID)
		return ok && a.cfg.Pay.Watched(inv.Environment, t.Network), nil
	}
	for _, p := range rs {
		if !p.OnChain() {
			return false, nil
		}
	}
	return true, nil
}

// decodeVerify checks a verify body: {tx_hash, network}, a 32-byte hash on a network
// of the invoice's environment.
func (a *API) decodeVerify(r *http.Request, inv *kassa.Invoice) (hash, network string, err error) {
	err = httpx.DecodeJSON(r, func(f httpx.Field) (known bool, err error) {
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
		return "", "", err
	}
	if !kassa.ValidTxHash(hash) {
		return "", "", httpx.ErrInvalid("tx_hash", "invalid_tx_hash", "tx_hash must be 0x followed by 64 hex digits.")
	}
	if a.cfg.Registry == nil {
		return "", "", httpx.ErrInvalid("network", "invalid_network", "No networks are configured.")
	}
	if _, ok := a.cfg.Registry.Network(inv.Environment, network); !ok {
		return "", "", httpx.ErrInvalid("network", "invalid_network", "network must be a network of the invoice's environment.")
	}
	return hash, network, nil
}
