package api

import (
	"net/http"

	"rsc.io/qr"

	"kassa"
)

// pageQR serves GET /pay/{invoiceId}/qr.png: the QR code of the EIP-681 payment
// URI of the invoice's locked token, drawn here (no QR service is asked).
func (s *server) pageQR(w http.ResponseWriter, r *http.Request) {
	inv, _ := s.pageSession(w, r)
	if inv == nil {
		return
	}
	if inv.LockedTokenID == nil || (inv.Status != kassa.StatusUnpaid && inv.Status != kassa.StatusUnderpaid) {
		http.NotFound(w, r)
		return
	}
	a, err := s.currentAddress(r.Context(), inv)
	if err != nil {
		code, _ := classify(err, "")
		http.Error(w, http.StatusText(code), code)
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
