package dashboard

import (
	"html/template"
	"net/http"
	"strings"

	"github.com/kassapay/kassa"
)

// A refund Kassa cannot pay yet (its wallet is short: failure_reason) may be
// paid by the merchant from their own wallet (decisions.md, "Refunds, and money
// that needs a person"): the invoice page offers it with a confirmation; once
// chosen it shows the exact transfer as an EIP-681 link with its QR code and in
// words, "waiting for your transfer" until the chain watcher sees it, then the
// transaction. The block is its own template (refundownwallet.html).

// ownWalletRow is one refund in the invoice page's own-wallet block.
type ownWalletRow struct {
	*kassa.Refund
	Offer   bool // Kassa cannot pay it yet: the merchant may take it over
	Waiting bool // the merchant's: waiting for their transfer
	Seen    bool // the merchant's transfer was seen (sent, or confirmed)
	Token   string
	Network string
	ChainID int64
	// Contract is the token's contract ("" for the native coin).
	Contract string
	// URI is the EIP-681 link of the exact transfer (html/template would refuse
	// its ethereum: scheme in an href); QR its QR code.
	URI   template.URL
	QR    template.URL
	TxURL string // the seen transfer on the network's explorer; "" without one
	// Note is why a refund the merchant pays still waits beyond waiting (a
	// transfer too small, a reorganisation took theirs); "" otherwise.
	Note string
}

// AmountText is the refund's amount as the merchant sends it, "4.000001 USDT".
func (o ownWalletRow) AmountText() string {
	return kassa.FormatUnits(o.AmountUnits, o.Decimals) + " " + o.TokenSymbol
}

// ownWalletRows are the invoice's refunds the block shows: those Kassa cannot
// pay yet, and those the merchant pays. None without the refunds service.
func (d *Dashboard) ownWalletRows(r *http.Request, p kassa.Principal, inv *kassa.Invoice) ([]ownWalletRow, error) {
	if d.cfg.Refunds == nil {
		return nil, nil
	}
	p.Environment = inv.Environment
	rs, err := d.cfg.Refunds.List(r.Context(), p, inv.ID)
	if err != nil {
		return nil, err
	}
	var out []ownWalletRow
	for _, f := range rs {
		row := ownWalletRow{Refund: f, Token: f.TokenSymbol, Network: f.Network}
		switch {
		case f.OwnWallet == nil:
			row.Offer = f.Status == kassa.RefundPending && f.Address != "" && f.FailureReason != ""
		case f.Status == kassa.RefundPending:
			row.Waiting = true
			if f.FailureReason != kassa.OwnWalletWaiting {
				row.Note = f.FailureReason
			}
		case f.Status == kassa.RefundSent || f.Status == kassa.RefundConfirmed:
			row.Seen = true
		}
		if !row.Offer && !row.Waiting && !row.Seen {
			continue
		}
		n, ok := d.cfg.Registry.Network(inv.Environment, f.Network)
		if ok {
			row.Network, row.ChainID = n.DisplayName, n.ChainID
			if n.ExplorerURL != "" && f.TxHash != "" {
				row.TxURL = strings.TrimRight(n.ExplorerURL, "/") + "/tx/" + f.TxHash
			}
		}
		if t, found := d.cfg.Registry.Token(inv.Environment, f.TokenID); found && ok && row.Waiting {
			if t.Type == kassa.TokenERC20 {
				row.Contract = kassa.ChecksumAddress(t.Address)
			}
			if uri, err := kassa.OwnWalletURI(f, t, n.ChainID); err == nil {
				row.URI, row.QR = template.URL(uri), qrData(uri)
			}
		}
		out = append(out, row)
	}
	return out, nil
}

// payRefundOwnWallet serves POST
// /dashboard/invoices/{id}/refunds/{refundId}/own-wallet: the merchant pays the
// refund from their own wallet; Kassa stops paying it (409 refund_being_sent
// once its transfer is signed). Then back to the invoice (303).
func (d *Dashboard) payRefundOwnWallet(w http.ResponseWriter, r *http.Request, v *visit) error {
	return d.refundPayor(w, r, v, true)
}

// letKassaPayRefund serves POST
// /dashboard/invoices/{id}/refunds/{refundId}/kassa-pays: the merchant hands the
// refund back to Kassa while no transfer of theirs was seen.
func (d *Dashboard) letKassaPayRefund(w http.ResponseWriter, r *http.Request, v *visit) error {
	return d.refundPayor(w, r, v, false)
}

func (d *Dashboard) refundPayor(w http.ResponseWriter, r *http.Request, v *visit, own bool) error {
	inv, p, err := d.ownInvoice(r, v)
	if err != nil {
		return err
	}
	if d.cfg.Refunds == nil {
		return kassa.NotFound("refund")
	}
	f, err := d.cfg.Refunds.Get(r.Context(), p, r.PathValue("refundId"))
	if err != nil {
		return err
	}
	if f.InvoiceID != inv.ID {
		return kassa.NotFound("refund")
	}
	if own {
		_, err = d.cfg.Refunds.PayFromOwnWallet(r.Context(), p, f.ID)
	} else {
		_, err = d.cfg.Refunds.LetKassaPay(r.Context(), p, f.ID)
	}
	if err != nil {
		return err
	}
	redirect(w, r, "/dashboard/invoices/"+inv.ID+"#refund-"+f.ID)
	return nil
}
