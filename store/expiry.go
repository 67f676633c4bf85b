package store

import (
	"context"
	"fmt"
	"time"

	"github.com/kassapay/kassa"
)

// ExpireInvoices moves open invoices whose expiry has passed (with nothing pending)
// to expired, each in its own transaction with its invoice.updated and
// invoice.expired events, so lists and event consumers see expiry even when nobody
// reads the invoice. Reads show expiry at once anyway (EffectiveStatus); this makes
// it a stored fact. It handles at most limit invoices and returns how many it expired.
func (db *DB) ExpireInvoices(ctx context.Context, limit int) (int, error) {
	now := db.clock()
	rows, err := db.r.QueryContext(ctx, `SELECT id, merchant_id FROM invoices
		WHERE status IN ('unpaid', 'underpaid') AND (
			(expires_at <= $1 AND amount_pending = 0) OR expires_at <= $2)
		ORDER BY expires_at LIMIT $3`, micros(now), micros(now.Add(-kassa.WatchAfterExpiry)), limit)
	if err != nil {
		return 0, fmt.Errorf("store: due invoices: %w", err)
	}
	type due struct {
		id       string
		merchant int64
	}
	var list []due
	for rows.Next() {
		var d due
		if err := rows.Scan(&d.id, &d.merchant); err != nil {
			rows.Close()
			return 0, fmt.Errorf("store: due invoices: %w", err)
		}
		list = append(list, d)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, err
	}
	n := 0
	for _, d := range list {
		expired, err := db.expireInvoice(ctx, d.merchant, d.id)
		if err != nil {
			return n, err
		}
		if expired {
			n++
		}
	}
	return n, nil
}

// expireInvoice applies the lifecycle to one invoice as of now and stores the change.
// Once the watch after expiry has ended, payments still pending will not be seen
// to confirm: they are set aside for a person (manual_retry), which lets the invoice
// expire.
func (db *DB) expireInvoice(ctx context.Context, merchantID int64, id string) (bool, error) {
	expired := false
	err := db.tx(ctx, func(tx txq) error {
		inv, err := db.invoice(ctx, tx, merchantID, id, db.forUpdate())
		if err != nil {
			return err
		}
		now := db.clock()
		if inv.AmountPending > 0 && !now.Before(inv.ExpiresAt.Add(kassa.WatchAfterExpiry)) {
			if err := db.abandonPending(ctx, tx, inv, now); err != nil {
				return err
			}
		}
		if inv.Status.Final() || inv.EffectiveStatus(now) != kassa.StatusExpired {
			return nil // paid, canceled or given a pending payment meanwhile
		}
		if _, err := tx.ExecContext(ctx, "UPDATE invoices SET status = $1 WHERE id = $2 AND merchant_id = $3",
			string(kassa.StatusExpired), id, merchantID); err != nil {
			return fmt.Errorf("store: expire invoice: %w", err)
		}
		tx.note(note{kind: noteMoved, from: inv.Status, to: kassa.StatusExpired})
		inv.Status, expired = kassa.StatusExpired, true
		if err := writeEvents(ctx, tx, merchantID, inv.Environment, inv, now, kassa.EventInvoiceUpdated, kassa.EventInvoiceExpired); err != nil {
			return err
		}
		return db.followInvoice(ctx, tx, inv, "", now)
	})
	return expired, err
}

// abandonPending sets an invoice's pending receipts aside (manual_retry), writes
// their events and stores the invoice recomputed without them.
func (db *DB) abandonPending(ctx context.Context, tx txq, inv *kassa.Invoice, now time.Time) error {
	all, err := receipts(ctx, tx, inv.ID, 0)
	if err != nil {
		return err
	}
	for _, r := range all {
		if r.Status != kassa.PaymentPending {
			continue
		}
		r.Status, r.AttentionReason = kassa.PaymentManualRetry, kassa.AttentionLate
		if r.Orphaned() {
			r.AttentionReason = kassa.AttentionReorged
		}
		if _, err := tx.ExecContext(ctx, "UPDATE receipts SET status = $1, attention_reason = $2 WHERE id = $3",
			string(r.Status), string(r.AttentionReason), r.ID); err != nil {
			return fmt.Errorf("store: abandon pending receipt: %w", err)
		}
		if err := writeEvents(ctx, tx, inv.MerchantID, inv.Environment, r, now, kassa.EventPaymentUpdated); err != nil {
			return err
		}
	}
	got := kassa.PaymentAmounts(all)
	if _, err := tx.ExecContext(ctx, "UPDATE invoices SET amount_pending = $1 WHERE id = $2 AND merchant_id = $3",
		int64(got.Pending), inv.ID, inv.MerchantID); err != nil {
		return fmt.Errorf("store: abandon pending: %w", err)
	}
	inv.AmountPending = got.Pending
	return nil
}
