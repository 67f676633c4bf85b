package payorapi

import (
	"context"
	"net/http"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/api/httpx"
	"github.com/kassapay/kassa/internal/invoicejson"
	"github.com/kassapay/kassa/payment"
)

// Config holds what the payor API needs.
type Config struct {
	Core     *httpx.Core           // merchant credentials and the limits, for verify
	Signer   payment.SessionSigner // checks the session signatures
	Payor    kassa.PayorService    // the invoice of a session; nil: every session is unknown (404)
	Registry kassa.Registry        // networks and tokens; nil: none
	Rates    kassa.RateSource      // USD prices of tokens; nil: no tokens offered
	Pay      *payment.Service      // deposit addresses, quotes and verify
	Tracker  payment.Tracker       // receipts and their confirmations
	// PublicURL is the service's public address, for the icon URLs of tokens.
	PublicURL string
	// IconURL maps a token's icon URI to the URL it is served at (the payment
	// page's content-hashed asset URL); nil: as it is.
	IconURL func(uri string) string
}

// API serves the payor endpoints.
type API struct {
	cfg Config
}

// New returns the payor API over cfg.
func New(cfg Config) *API {
	if cfg.IconURL == nil {
		cfg.IconURL = func(uri string) string { return uri }
	}
	return &API{cfg: cfg}
}

type invoiceKey struct{}

// sessionInvoice is the invoice of the session Session checked.
func sessionInvoice(ctx context.Context) *kassa.Invoice {
	inv, _ := ctx.Value(invoiceKey{}).(*kassa.Invoice)
	return inv
}

// Session checks the payment session headers (PS): x-session-token and its
// x-signature, HMAC-SHA256 of the token under the server secret, compared in
// constant time. A bad or missing pair is 401; a session that names no invoice or
// has ended is 404. Requests are limited per client address and per session
// (429). h finds the session's invoice in its request's context.
func (a *API) Session(h httpx.Func) httpx.Func {
	return func(w http.ResponseWriter, r *http.Request) error {
		inv, err := a.session(w, r, false)
		if err != nil {
			return err
		}
		return h(w, r.WithContext(context.WithValue(r.Context(), invoiceKey{}, inv)))
	}
}

// session finds the invoice of the request's payment session headers, once the
// client address's bucket and then the session's have a token for it (and
// verify's buckets too, for a look-up on chain).
func (a *API) session(w http.ResponseWriter, r *http.Request, lookUp bool) (*kassa.Invoice, error) {
	if err := a.cfg.Core.LimitPayorAddr(w, r); err != nil {
		return nil, err
	}
	token, sig := r.Header.Get("X-Session-Token"), r.Header.Get("X-Signature")
	if token == "" || sig == "" {
		return nil, httpx.ErrUnauthenticated("missing_session", "Send the payment session in x-session-token and x-signature.")
	}
	if !a.cfg.Signer.Verify(token, sig) {
		return nil, httpx.ErrUnauthenticated("invalid_session", "The payment session token or signature is invalid.")
	}
	if err := a.cfg.Core.LimitPayorSession(w, r, token); err != nil {
		return nil, err
	}
	if lookUp {
		if err := a.cfg.Core.LimitVerifySession(w, r, token); err != nil {
			return nil, err
		}
	}
	if a.cfg.Payor == nil {
		return nil, kassa.ErrSessionNotFound()
	}
	return a.cfg.Payor.InvoiceBySession(r.Context(), token)
}

// Invoice serves GET /api/v1/payments/invoice: the payor's view of the invoice.
func (a *API) Invoice(w http.ResponseWriter, r *http.Request) error {
	inv := sessionInvoice(r.Context())
	view := invoicejson.Payor{Invoice: inv}
	if inv.LockedTokenID != nil && a.cfg.Registry != nil {
		if t, ok := a.cfg.Registry.Token(inv.Environment, *inv.LockedTokenID); ok {
			view.LockedNetwork = &t.Network
		}
	}
	httpx.WriteJSON(w, http.StatusOK, view)
	return nil
}

// PaymentStatus serves GET /api/v1/payments/payment-status for polling pages.
func (a *API) PaymentStatus(w http.ResponseWriter, r *http.Request) error {
	out, err := a.cfg.Tracker.Status(r.Context(), sessionInvoice(r.Context()))
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, out)
	return nil
}

// CustomerEmail serves GET /api/v1/payments/customer-email: {email}, null when unset.
func (a *API) CustomerEmail(w http.ResponseWriter, r *http.Request) error {
	inv := sessionInvoice(r.Context())
	httpx.WriteJSON(w, http.StatusOK, map[string]*string{"email": inv.CustomerEmail})
	return nil
}

// SetCustomerEmail serves POST /api/v1/payments/customer-email {email}.
func (a *API) SetCustomerEmail(w http.ResponseWriter, r *http.Request) error {
	inv := sessionInvoice(r.Context())
	var email *string
	err := httpx.DecodeJSON(r, func(f httpx.Field) (bool, error) {
		if f.Key != "email" {
			return false, nil
		}
		v, err := httpx.ReqString(f)
		email = &v
		return true, err
	})
	if err != nil {
		return err
	}
	if email == nil {
		return httpx.ErrInvalid("email", "missing_param", "email is required.")
	}
	if _, err := a.cfg.Payor.SetCustomerEmail(r.Context(), inv.MerchantID, inv.ID, *email); err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, map[string]any{"success": true, "email": *email,
		"message": "The receipt will be sent to this address."})
	return nil
}
