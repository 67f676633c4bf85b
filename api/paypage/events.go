package paypage

import (
	"context"
	"net/http"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/api/httpx"
)

// Events serves GET /pay/{invoiceId}/events: the payment-status object
// (as GET /api/v1/payments/payment-status answers it) each time it changes. It
// wakes on the merchant's events and also checks on a timer; it ends when the
// invoice is over, the client leaves or the server shuts down.
func (p *Page) Events(w http.ResponseWriter, r *http.Request) {
	inv, token := p.pageSession(w, r)
	if inv == nil {
		return
	}
	httpx.SSEView{Stream: p.cfg.Stream, MerchantID: inv.MerchantID, Env: inv.Environment, Key: inv.ID,
		Read: func(ctx context.Context) (any, bool, error) {
			fresh, err := p.cfg.Payor.InvoiceBySession(ctx, token)
			if err != nil {
				return nil, false, err
			}
			st, err := p.cfg.Tracker.Status(ctx, fresh)
			return st, st.Status == kassa.StatusUnpaid || st.Status == kassa.StatusUnderpaid, err
		}}.Serve(w, r)
}
