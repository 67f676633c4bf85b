package payment

import (
	"context"

	"github.com/kassapay/kassa"
)

// Status is how an invoice's payments stand, as the payor sees it: the answer of
// GET /api/v1/payments/payment-status, the payment_status of verify and each
// message of the payment page's event stream.
type Status struct {
	Status                 kassa.InvoiceStatus `json:"status"`
	AmountPaid             kassa.Millis        `json:"amount_paid"`
	AmountPaidDecimal      string              `json:"amount_paid_decimal"`
	AmountRemaining        kassa.Millis        `json:"amount_remaining"`
	AmountRemainingDecimal string              `json:"amount_remaining_decimal"`
	AmountPending          kassa.Millis        `json:"amount_pending"`
	PaidAt                 *string             `json:"paid_at"`
	Payments               []StatusPayment     `json:"payments"`
}

// StatusPayment is one transfer of a Status.
type StatusPayment struct {
	Status  kassa.InvoicePaymentStatus `json:"status"`
	TxHash  string                     `json:"tx_hash"`
	Network string                     `json:"network"`
	// AmountToken is the amount in the token as a decimal ("2.5"), as quotes
	// show it; AmountTokenUnits the same in base units ("2500000000000000000").
	AmountToken      string `json:"amount_token"`
	AmountTokenUnits string `json:"amount_token_units"`
	Confirmations    int    `json:"confirmations"`
	// ConfirmationsRequired is how many its network needs before it counts.
	ConfirmationsRequired int `json:"confirmations_required"`
	// AttentionReason is why a payment set aside waits for the shop (late,
	// wrong_token, final_invoice, reorged), null otherwise; a failed settlement
	// is the merchant's matter and not shown. Resolution is how the shop
	// resolved it (accepted, refunded, dismissed), null while it has not.
	AttentionReason *kassa.AttentionReason `json:"attention_reason"`
	Resolution      *kassa.Resolution      `json:"resolution"`
}

// Tracker reads an invoice's transfers for the payor: its receipts and how many
// confirmations each needs. The payor API and the payment page both show them.
type Tracker struct {
	Payments kassa.PaymentService // receipts; nil: none
	Registry kassa.Registry       // the confirmations each network needs; nil: 0
}

// Receipts loads an invoice's receipts, newest first (at most 100).
func (t Tracker) Receipts(ctx context.Context, inv *kassa.Invoice) ([]*kassa.InvoicePayment, error) {
	if t.Payments == nil {
		return nil, nil
	}
	return t.Payments.InvoicePayments(ctx, inv.MerchantID, inv.ID, 100)
}

// ConfirmationsNeeded is how many confirmations a payment on network needs.
func (t Tracker) ConfirmationsNeeded(env kassa.Environment, network string) int {
	if t.Registry != nil {
		if n, ok := t.Registry.Network(env, network); ok {
			return n.Confirmations
		}
	}
	return 0
}

// Status summarises an invoice's payments for polling pages. The invoice is read
// again with its receipts (kassa.PaymentService.InvoiceWithPayments), so a
// confirmed transfer is never shown beside an invoice that does not count it
// yet; inv names it and stands in when there is no PaymentService.
func (t Tracker) Status(ctx context.Context, inv *kassa.Invoice) (Status, error) {
	var rs []*kassa.InvoicePayment
	if t.Payments != nil {
		fresh, receipts, err := t.Payments.InvoiceWithPayments(ctx, inv.MerchantID, inv.ID, 100)
		if err != nil {
			return Status{}, err
		}
		inv, rs = fresh, receipts
	}
	rem := inv.AmountRemaining()
	out := Status{Status: inv.Status, AmountPaid: inv.AmountPaid, AmountPaidDecimal: inv.AmountPaid.Decimal(),
		AmountRemaining: rem, AmountRemainingDecimal: rem.Decimal(), AmountPending: inv.AmountPending,
		Payments: make([]StatusPayment, 0, len(rs))}
	if inv.PaidAt != nil {
		paid := kassa.FormatTime(*inv.PaidAt)
		out.PaidAt = &paid
	}
	for _, p := range rs {
		out.Payments = append(out.Payments, StatusPayment{Status: p.Status, TxHash: p.TxHash, Network: p.Network,
			AmountToken: t.decimal(inv.Environment, p), AmountTokenUnits: p.AmountUnits.String(),
			Confirmations: p.Confirmations, ConfirmationsRequired: t.ConfirmationsNeeded(inv.Environment, p.Network),
			AttentionReason: payorReason(p.AttentionReason), Resolution: optional(p.Resolution)})
	}
	return out, nil
}

// decimal is p's amount in its token as a decimal; in base units when the
// registry no longer knows the token (its decimals are then unknown).
func (t Tracker) decimal(env kassa.Environment, p *kassa.InvoicePayment) string {
	if t.Registry != nil {
		if tok, ok := t.Registry.Token(env, p.TokenID); ok {
			return kassa.FormatUnits(p.AmountUnits, tok.Decimals)
		}
	}
	return p.AmountUnits.String()
}

// payorReason is the attention reason the payor is shown: null for none and
// for settlement_failed (the merchant's settlement, not the payor's transfer).
func payorReason(r kassa.AttentionReason) *kassa.AttentionReason {
	if r == kassa.AttentionSettlementFailed {
		return nil
	}
	return optional(r)
}

// optional is v, or nil for its zero value (null on the wire).
func optional[T comparable](v T) *T {
	var zero T
	if v == zero {
		return nil
	}
	return &v
}
