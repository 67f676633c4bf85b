package store

import (
	"context"
	"fmt"
	"time"

	"github.com/kassapay/kassa"
)

// CancelInvoice cancels an unpaid invoice and writes invoice.canceled and
// invoice.updated in the same transaction. Any other effective status (expired
// included) is a conflict.
func (db *DB) CancelInvoice(ctx context.Context, p kassa.Principal, id string) (*kassa.Invoice, error) {
	merchantID := p.MerchantID
	var inv *kassa.Invoice
	err := db.tx(ctx, func(tx txq) error {
		var err error
		inv, err = db.invoice(ctx, tx, merchantID, id, db.forUpdate())
		if err != nil {
			return err
		}
		if inv.Environment != p.Environment {
			return kassa.Errorf(kassa.KindPermission, "environment_mismatch",
				"This invoice is in %s; a %s credential cannot cancel it.", inv.Environment, p.Environment)
		}
		now := db.clock()
		inv.Status = inv.EffectiveStatus(now)
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

// cancelInvoiceTx cancels an unpaid invoice without receipts through tx and writes
// invoice.canceled and invoice.updated; inv.Status must be its effective status.
func cancelInvoiceTx(ctx context.Context, tx txq, inv *kassa.Invoice, now time.Time) error {
	if err := kassa.CheckCancel(inv.Status); err != nil {
		return err
	}
	var receipts int
	if err := tx.QueryRowContext(ctx, "SELECT COUNT(*) FROM receipts WHERE invoice_id = $1", inv.ID).Scan(&receipts); err != nil {
		return fmt.Errorf("store: cancel invoice: %w", err)
	}
	if receipts > 0 {
		return kassa.Errorf(kassa.KindConflict, "invoice_has_payments",
			"This invoice has received payments (%d); it cannot be canceled.", receipts)
	}
	if _, err := tx.ExecContext(ctx, "UPDATE invoices SET status = $1, canceled_at = $2 WHERE id = $3 AND merchant_id = $4",
		string(kassa.StatusCanceled), micros(now), inv.ID, inv.MerchantID); err != nil {
		return fmt.Errorf("store: cancel invoice: %w", err)
	}
	tx.note(note{kind: noteMoved, from: inv.Status, to: kassa.StatusCanceled})
	inv.Status, inv.CanceledAt = kassa.StatusCanceled, &now
	return writeEvents(ctx, tx, inv.MerchantID, inv.Environment, inv, now, kassa.EventInvoiceCanceled, kassa.EventInvoiceUpdated)
}
