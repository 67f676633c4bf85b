package report

import (
	"context"
	"time"

	"github.com/kassapay/kassa"
)

// refundHeader names the columns of refunds.csv.
var refundHeader = []string{"refund_id", "invoice_id", "payment_id", "created_at", "sent_at", "confirmed_at", "status",
	"environment", "network", "token_id", "token_symbol", "amount_token_units", "amount_token", "amount_usd", "rate",
	"address", "tx_hash", "reason", "failure_reason", "invoice_status", "invoice_created_at", "invoice_amount_usd",
	"customer_id"}

// refundNumbers are the columns of refunds.csv that hold numbers.
var refundNumbers = map[string]bool{"token_id": true, "amount_token_units": true, "amount_token": true,
	"amount_usd": true, "invoice_amount_usd": true}

// refunds runs refunds.csv: one row per refund of the invoices of f, whatever its
// status, the invoices newest first and each one's refunds oldest first. Amounts
// are what the refund pays back, positive (payments.csv shows the same refunds
// as negative rows beside the money that came in).
func (s Source) refunds(ctx context.Context, f Filter) (*Report, error) {
	rep, err := newReport(refundHeader, refundNumbers)
	if err != nil {
		return nil, err
	}
	if s.Refunds == nil {
		return rep, nil
	}
	err = s.each(ctx, f, func(page []*kassa.Invoice) error {
		byInvoice, err := s.Refunds.RefundsOf(ctx, f.MerchantID, ids(page))
		if err != nil {
			return err
		}
		for _, inv := range page {
			for _, r := range byInvoice[inv.ID] {
				if err := rep.add([]string{r.ID, inv.ID, r.PaymentID, kassa.FormatTime(r.CreatedAt), optTime(r.SentAt),
					optTime(r.ConfirmedAt), string(r.Status), string(r.Environment), r.Network, itoa(r.TokenID), r.TokenSymbol,
					r.AmountUnits.String(), kassa.FormatUnits(r.AmountUnits, r.Decimals), r.AmountUSD.Decimal(), string(r.Rate),
					r.Address, r.TxHash, r.Reason, r.FailureReason, string(inv.Status), kassa.FormatTime(inv.CreatedAt),
					inv.Amount.Decimal(), str(inv.CustomerID)}, inv.Metadata); err != nil {
					return err
				}
			}
		}
		return nil
	})
	return finish(rep, err)
}

// optTime is t in ISO 8601 UTC, "" for nil.
func optTime(t *time.Time) string {
	if t == nil {
		return ""
	}
	return kassa.FormatTime(*t)
}
