package report

import (
	"context"
	"io"

	"kassa"
)

// invoiceHeader names the columns of invoices.csv.
var invoiceHeader = []string{"invoice_id", "created_at", "environment", "status", "invoice_type", "amount_usd",
	"amount_paid_usd", "amount_pending_usd", "description", "customer_id", "customer_email", "expires_at", "paid_at"}

// WriteInvoices writes invoices.csv: one row per invoice of f, newest first.
func (s Source) WriteInvoices(ctx context.Context, f Filter, w io.Writer) error {
	t := &table{header: invoiceHeader}
	err := s.each(ctx, f, func(page []*kassa.Invoice) error {
		for _, inv := range page {
			paid := ""
			if inv.PaidAt != nil {
				paid = kassa.FormatTime(*inv.PaidAt)
			}
			t.add([]string{inv.ID, kassa.FormatTime(inv.CreatedAt), string(inv.Environment), string(inv.Status), inv.Type,
				inv.Amount.Decimal(), inv.AmountPaid.Decimal(), inv.AmountPending.Decimal(), str(inv.Description),
				str(inv.CustomerID), str(inv.CustomerEmail), kassa.FormatTime(inv.ExpiresAt), paid}, inv.Metadata)
		}
		return nil
	})
	if err != nil {
		return err
	}
	return t.write(w)
}
