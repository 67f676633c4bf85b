package store

import (
	"context"
	"fmt"

	"github.com/kassapay/kassa"
)

// ResolvePayment records a merchant's accept or dismiss of a set-aside payment in
// one transaction, with the invoice locked: it reads the invoice, the payment (nil
// when the invoice has no such payment) and how many refunds of the payment are
// under way, and asks decide, the payment service's rule; when decide allows it,
// the receipt's resolution and its invoice_payment.updated event are written, and
// accepting also confirms it and recomputes the invoice (an expired invoice the
// accepted money pays becomes paid: kassa.Invoice.Recompute), with the invoice's
// events. The store decides nothing.
func (db *DB) ResolvePayment(ctx context.Context, merchantID int64, invoiceID, paymentID string, req kassa.ResolveRequest,
	decide func(inv *kassa.Invoice, pay *kassa.Payment, refunding int) error) (*kassa.Payment, error) {
	if !kassa.ValidUUID(paymentID) {
		return nil, kassa.NotFound("payment")
	}
	var rec *kassa.Payment
	err := db.tx(ctx, func(tx txq) error {
		inv, err := db.invoice(ctx, tx, merchantID, invoiceID, db.forUpdate())
		if err != nil {
			return err
		}
		all, err := receipts(ctx, tx, inv.ID, 0)
		if err != nil {
			return err
		}
		rec = nil
		for _, r := range all {
			if r.ID == paymentID {
				rec = r
			}
		}
		var refunding int
		if rec != nil {
			if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM refunds WHERE payment_id = $1 AND status NOT IN ($2, $3)`,
				rec.ID, string(kassa.RefundFailed), string(kassa.RefundCanceled)).Scan(&refunding); err != nil {
				return fmt.Errorf("store: resolve payment: %w", err)
			}
		}
		if err := decide(inv, rec, refunding); err != nil {
			return err
		}
		now := db.clock()
		rec.Resolve(req.How, req.Note, now)
		if _, err := tx.ExecContext(ctx, `UPDATE receipts SET status = $1, confirmed_at = $2, resolution = $3,
			resolved_at = $4, resolution_note = $5 WHERE id = $6`,
			string(rec.Status), nullMicros(rec.ConfirmedAt), string(rec.Resolution), micros(now), rec.ResolutionNote,
			rec.ID); err != nil {
			return fmt.Errorf("store: resolve payment: %w", err)
		}
		if err := writeEvents(ctx, tx, inv.MerchantID, inv.Environment, rec, now, kassa.EventPaymentUpdated); err != nil {
			return err
		}
		if req.How != kassa.ResolutionAccepted {
			return nil
		}
		m, err := db.merchant(ctx, tx, inv.MerchantID, "")
		if err != nil {
			return err
		}
		return db.saveRecomputed(ctx, tx, inv, all, rec, m.UnderpaymentToleranceMillis, now)
	})
	if err != nil {
		return nil, err
	}
	return rec, nil
}
