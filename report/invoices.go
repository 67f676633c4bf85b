package report

import (
	"context"

	"github.com/kassapay/kassa"
)

// invoiceHeader names the columns of invoices.csv.
var invoiceHeader = []string{"invoice_id", "created_at", "environment", "status", "invoice_type", "amount_usd",
	"amount_paid_usd", "amount_pending_usd", "description", "customer_id", "customer_email", "expires_at", "paid_at"}

// invoiceNumbers are the columns of invoices.csv that hold numbers.
var invoiceNumbers = map[string]bool{"amount_usd": true, "amount_paid_usd": true, "amount_pending_usd": true}

// invoices runs invoices.csv: one row per invoice of f, newest first.
func (s Source) invoices(ctx context.Context, f Filter) (*Report, error) {
	rep, err := newReport(invoiceHeader, invoiceNumbers)
	if err != nil {
		return nil, err
	}
	err = s.each(ctx, f, func(page []*kassa.Invoice) error {
		for _, inv := range page {
			paid := ""
			if inv.PaidAt != nil {
				paid = kassa.FormatTime(*inv.PaidAt)
			}
			if err := rep.add([]string{inv.ID, kassa.FormatTime(inv.CreatedAt), string(inv.Environment), string(inv.Status), inv.Type,
				inv.Amount.Decimal(), inv.AmountPaid.Decimal(), inv.AmountPending.Decimal(), str(inv.Description),
				str(inv.CustomerID), str(inv.CustomerEmail), kassa.FormatTime(inv.ExpiresAt), paid}, inv.Metadata); err != nil {
				return err
			}
		}
		return nil
	})
	return finish(rep, err)
}

// finish returns rep, or closes it and returns err.
func finish(rep *Report, err error) (*Report, error) {
	if err != nil {
		rep.Close()
		return nil, err
	}
	return rep, nil
}
