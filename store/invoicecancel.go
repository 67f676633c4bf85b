package store

import (
	"context"
	"fmt"
	"time"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/invoicing"
)

// CancelInvoice locks the merchant's invoice, reads it at its effective status,
// counts its payments and asks decide, the invoice service's rule; when decide
// allows it, the invoice is canceled with invoice.canceled and invoice.updated,
// and its order follows, in the same transaction. The store decides nothing.
func (db *DB) CancelInvoice(ctx context.Context, merchantID int64, id string, decide invoicing.Decide) (*kassa.Invoice, error) {
	var inv *kassa.Invoice
	err := db.tx(ctx, func(tx txq) error {
		var err error
		inv, err = db.invoice(ctx, tx, merchantID, id, db.forUpdate())
		if err != nil {
			return err
		}
		now := db.clock()
		inv.Status = inv.EffectiveStatus(now)
		payments, err := countPayments(ctx, tx, inv.ID)
		if err != nil {
			return err
		}
		if err := decide(inv, payments); err != nil {
			return err
		}
		if err := cancelInvoiceTx(ctx, tx, inv, now); err != nil {
			return err
		}
		return db.followInvoice(ctx, tx, inv, "", now)
	})
	if err != nil {
		return nil, err
	}
	return inv, nil
}

// countPayments counts the payments (receipts, in any status) recorded against
// the invoice id, for a decision on the locked invoice.
func countPayments(ctx context.Context, tx txq, invoiceID string) (int, error) {
	var n int
	if err := tx.QueryRowContext(ctx, "SELECT COUNT(*) FROM receipts WHERE invoice_id = $1", invoiceID).Scan(&n); err != nil {
		return 0, fmt.Errorf("store: count payments: %w", err)
	}
	return n, nil
}

// cancelInvoiceTx writes the cancel of the locked invoice inv through tx, with
// invoice.canceled and invoice.updated; inv.Status must be its effective status,
// and a service must have allowed the cancel.
func cancelInvoiceTx(ctx context.Context, tx txq, inv *kassa.Invoice, now time.Time) error {
	if _, err := tx.ExecContext(ctx, "UPDATE invoices SET status = $1, canceled_at = $2 WHERE id = $3 AND merchant_id = $4",
		string(kassa.StatusCanceled), micros(now), inv.ID, inv.MerchantID); err != nil {
		return fmt.Errorf("store: cancel invoice: %w", err)
	}
	tx.note(note{kind: noteMoved, from: inv.Status, to: kassa.StatusCanceled})
	inv.Status, inv.CanceledAt = kassa.StatusCanceled, &now
	return writeEvents(ctx, tx, inv.MerchantID, inv.Environment, inv, now, kassa.EventInvoiceCanceled, kassa.EventInvoiceUpdated)
}
