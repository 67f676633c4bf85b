package dashboard

import (
	"html/template"
	"net/http"
	"strings"

	"github.com/kassapay/kassa"
)

// refundRow is one refund of an invoice as its page and the invoice's page
// show it (assets/refunds.tmpl).
type refundRow struct {
	*kassa.Refund
	Status    statusWord
	Token     string // "0.004 tBNB"
	Network   string // its name as a merchant reads it
	TxURL     string // its transfer on the explorer; "" when the network has none or nothing watches it (a stand-in hash)
	Page      string
	CanCancel bool
	QR        template.URL // the claim link's QR code (the refund's page only)
}

// AmountText is the refund in USD with the tokens it sends, "$4.00 (4 USDT)".
func (r refundRow) AmountText() string { return r.AmountUSD.USD() + " (" + r.Token + ")" }

func (d *Dashboard) refundRow(inv *kassa.Invoice, ref *kassa.Refund) refundRow {
	row := refundRow{Refund: ref, Status: status(kindMoneyBack, ref.Status),
		Token:   kassa.FormatUnits(ref.AmountUnits, ref.Decimals) + " " + ref.TokenSymbol,
		Network: d.networkName(inv.Environment, ref.Network), Page: "/dashboard/invoices/" + inv.ID + "/refunds/" + ref.ID,
		CanCancel: ref.Status.Cancelable()}
	// Only a watched network's hashes are transfers: on the others a refund is
	// completed by simulation with a stand-in hash no explorer knows.
	if n, ok := d.cfg.Registry.Network(inv.Environment, ref.Network); ok && n.ExplorerURL != "" && ref.TxHash != "" && len(n.RPCURLs) > 0 {
		row.TxURL = strings.TrimRight(n.ExplorerURL, "/") + "/tx/" + ref.TxHash
	}
	return row
}

// refundView is a refund's page.
type refundView struct {
	Inv    *kassa.Invoice
	Refund refundRow
	Notice string
}

// refundPage serves GET /dashboard/invoices/{id}/refunds/{refundId}: the refund
// with its status in words, its transfer, and while it waits for the payor its
// claim link with a QR code (rendered again from the server secret: the link
// is not stored).
func (d *Dashboard) refundPage(w http.ResponseWriter, r *http.Request, v *visit) error {
	inv, ref, err := d.ownRefund(r, v)
	if err != nil {
		return err
	}
	view := refundView{Inv: inv, Refund: d.refundRow(inv, ref)}
	if ref.ClaimURL != "" {
		view.Refund.QR = qrData(ref.ClaimURL)
	}
	switch r.URL.Query().Get("done") {
	case "created":
		view.Notice = "The refund was created."
		if ref.Status == kassa.RefundAwaitingAddress {
			view.Notice += " Send the payor the claim link below: the money goes out once they give their address."
		}
	case "canceled":
		view.Notice = "The refund was canceled: nothing was sent, and its amount can be refunded again."
	}
	d.render(w, r, http.StatusOK, "refund.html", v, view)
	return nil
}

// cancelRefund serves POST /dashboard/invoices/{id}/refunds/{refundId}/cancel:
// the API's cancel (409 once its transfer is signed); then back to the refund.
func (d *Dashboard) cancelRefund(w http.ResponseWriter, r *http.Request, v *visit) error {
	inv, ref, err := d.ownRefund(r, v)
	if err != nil {
		return err
	}
	p := v.principal()
	p.Environment = inv.Environment
	if _, err := d.cfg.Refunds.Cancel(r.Context(), p, ref.ID); err != nil {
		return err
	}
	redirect(w, r, "/dashboard/invoices/"+inv.ID+"/refunds/"+ref.ID+"?done=canceled")
	return nil
}

// ownRefund finds the path's refund among the path's invoice's (the merchant's).
func (d *Dashboard) ownRefund(r *http.Request, v *visit) (*kassa.Invoice, *kassa.Refund, error) {
	inv, p, err := d.ownInvoice(r, v)
	if err != nil {
		return nil, nil, err
	}
	id := r.PathValue("refundId")
	if d.cfg.Refunds == nil || !kassa.ValidUUID(id) {
		return nil, nil, kassa.NotFound("refund")
	}
	ref, err := d.cfg.Refunds.Get(r.Context(), p, id)
	if err != nil {
		return nil, nil, err
	}
	if ref.InvoiceID != inv.ID {
		return nil, nil, kassa.NotFound("refund")
	}
	return inv, ref, nil
}

// networkName is a network's name as a merchant reads it.
func (d *Dashboard) networkName(env kassa.Environment, name string) string {
	if n, ok := d.cfg.Registry.Network(env, name); ok && n.DisplayName != "" {
		return n.DisplayName
	}
	return name
}
