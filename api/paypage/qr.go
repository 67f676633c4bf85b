package paypage

import (
	"net/http"

	"github.com/kassapay/kassa/api/httpx"

	"rsc.io/qr"
)

// QR serves GET /pay/{invoiceId}/qr.png?…&quote=<expires_at>: the QR code of
// the EIP-681 payment URI of the quote the page shows, drawn here (no QR service
// is asked). It only reads: the quote must still hold (404 when the invoice has
// none), and when quote names one, be that one (409 when it was replaced since),
// so the code never asks for another amount than the page beside it.
func (p *Page) QR(w http.ResponseWriter, r *http.Request) {
	inv, _ := p.pageSession(w, r)
	if inv == nil {
		return
	}
	a, ok, err := p.cfg.Pay.HeldQuote(r.Context(), inv)
	switch {
	case err != nil:
		code, _ := httpx.Classify(err, "")
		http.Error(w, http.StatusText(code), code)
		return
	case !ok || inv.Status.Final():
		http.Error(w, "No current quote: reload the page.", http.StatusNotFound)
		return
	case r.URL.Query().Has("quote") && r.URL.Query().Get("quote") != a.ExpiresAt:
		http.Error(w, "This quote was replaced: reload the page.", http.StatusConflict)
		return
	}
	code, err := qr.Encode(a.PaymentURI, qr.M)
	if err != nil {
		http.Error(w, http.StatusText(http.StatusInternalServerError), http.StatusInternalServerError)
		return
	}
	code.Scale = 4
	w.Header().Set("Content-Type", "image/png")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	_, _ = w.Write(code.PNG())
}
