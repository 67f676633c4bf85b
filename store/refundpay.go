package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/outbox"
)

// Refunds are paid on chain by the payout executor (payout.go, outbox*.go): a
// pending refund gets a payout (payouts.refund_id) that the network's sender
// signs, stores and broadcasts like a sweep. Its transfer signed, the refund is
// sent; with the network's confirmations, confirmed; a payout that fails, failed.

// queueRefundPayouts queues a payout for each pending refund of env on network
// that has none and that the merchant does not pay from their own wallet: from the deposit address of the payment it refunds while that
// payment's money is still there (set aside and unresolved: it is never swept),
// else from the gas wallet gasAddress. It returns how many it queued.
func (db *DB) queueRefundPayouts(ctx context.Context, env kassa.Environment, network, gasAddress string) (int, error) {
	rows, err := db.r.QueryContext(ctx, `SELECT r.id FROM refunds r WHERE r.environment = $1 AND r.network = $2
		AND r.status = $3 AND r.paid_by = '' AND NOT EXISTS (SELECT 1 FROM payouts p WHERE p.refund_id = r.id) ORDER BY r.created_at LIMIT 100`,
		string(env), network, string(kassa.RefundPending))
	if err != nil {
		return 0, fmt.Errorf("store: refunds due: %w", err)
	}
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return 0, fmt.Errorf("store: refunds due: %w", err)
		}
		ids = append(ids, id)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, fmt.Errorf("store: refunds due: %w", err)
	}
	queued := 0
	for _, id := range ids {
		err := db.tx(ctx, func(tx txq) error {
			r, err := db.refund(ctx, tx, 0, id, db.forUpdate())
			if err != nil {
				return err
			}
			var exists int
			if err := tx.QueryRowContext(ctx, "SELECT COUNT(*) FROM payouts WHERE refund_id = $1", r.ID).Scan(&exists); err != nil {
				return fmt.Errorf("store: queue refund: %w", err)
			}
			if exists > 0 || r.Status != kassa.RefundPending || r.OwnWallet != nil {
				return nil
			}
			from, index, err := refundSource(ctx, tx, r)
			if err != nil {
				return err
			}
			if from == "" {
				from, index = gasAddress, outbox.GasWalletIndex
			}
			queued++
			return insertPayout(ctx, tx, &outbox.Payout{ID: kassa.NewUUID(), Kind: outbox.PayoutRefund, Environment: r.Environment,
				Network: r.Network, MerchantID: r.MerchantID, From: from, FromIndex: index, TokenID: r.TokenID,
				Amount: r.AmountUnits, To: r.Address, RefundID: r.ID, Status: outbox.PayoutQueued, CreatedAt: db.clock()})
		})
		if err != nil {
			return queued, err
		}
	}
	return queued, nil
}

// refundSource is the deposit address (and its index) that still holds the money
// of the payment r refunds: one set aside for a person, unresolved, on the
// canonical chain, in r's token and network. "" when the gas wallet pays.
func refundSource(ctx context.Context, tx queryer, r *kassa.Refund) (string, int64, error) {
	if r.PaymentID == "" {
		return "", 0, nil
	}
	var address string
	var index int64
	err := tx.QueryRowContext(ctx, `SELECT a.address, a.address_index FROM receipts p
		JOIN payment_addresses a ON a.invoice_id = p.invoice_id AND a.network = p.network
		WHERE p.id = $1 AND p.status = $2 AND p.resolution = '' AND NOT (p.block_number > 0 AND p.block_hash = '')
		AND p.network = $3 AND p.token_id = $4`,
		r.PaymentID, string(kassa.PaymentManualRetry), r.Network, r.TokenID).Scan(&address, &index)
	if errors.Is(err, sql.ErrNoRows) {
		return "", 0, nil
	}
	if err != nil {
		return "", 0, fmt.Errorf("store: refund source: %w", err)
	}
	return address, index, nil
}

// payoutRefund loads, locked, the refund payout payoutID pays; nil for any other payout.
func (db *DB) payoutRefund(ctx context.Context, tx txq, payoutID string) (*kassa.Refund, error) {
	var id sql.Null[string]
	if err := tx.QueryRowContext(ctx, "SELECT refund_id FROM payouts WHERE id = $1", payoutID).Scan(&id); err != nil {
		return nil, fmt.Errorf("store: payout refund: %w", err)
	}
	if !id.Valid {
		return nil, nil
	}
	return db.refund(ctx, tx, 0, id.V, db.forUpdate())
}

// refundSigned marks the refund a transfer pays sent: its transaction is stored
// and goes out at once (stored before broadcast).
func (db *DB) refundSigned(ctx context.Context, tx txq, payoutID, hash string, now time.Time) error {
	r, err := db.payoutRefund(ctx, tx, payoutID)
	if err != nil || r == nil || r.Status != kassa.RefundPending {
		return err
	}
	r.Status, r.TxHash, r.FailureReason = kassa.RefundSent, hash, ""
	t := now
	r.SentAt = &t
	return db.saveRefund(ctx, tx, r, now)
}

// refundConfirmed completes a refund whose transfer has the network's
// confirmations: the invoice's amount_refunded grows by it, and the payment it
// names, when unresolved, is resolved as refunded (with its event).
func (db *DB) refundConfirmed(ctx context.Context, tx txq, id, hash string, now time.Time) error {
	r, err := db.refund(ctx, tx, 0, id, db.forUpdate())
	if err != nil || r.Status == kassa.RefundConfirmed {
		return err
	}
	t := now
	r.Status, r.TxHash, r.ConfirmedAt, r.FailureReason = kassa.RefundConfirmed, hash, &t, ""
	if r.SentAt == nil {
		r.SentAt = &t
	}
	if err := db.saveRefund(ctx, tx, r, now); err != nil {
		return err
	}
	if err := db.addRefunded(ctx, tx, r, r.AmountUSD, now); err != nil {
		return err
	}
	if r.PaymentID == "" {
		return nil
	}
	p, err := scanReceipt(tx.QueryRowContext(ctx, "SELECT "+receiptSelect+" FROM receipts WHERE id = $1"+db.forUpdate(), r.PaymentID))
	if err != nil {
		return fmt.Errorf("store: refund confirmed: %w", err)
	}
	if p.Resolution != "" {
		return nil
	}
	p.Resolution, p.ResolvedAt, p.ResolutionNote = kassa.ResolutionRefunded, &t, r.Reason
	if _, err := tx.ExecContext(ctx, "UPDATE receipts SET resolution = $1, resolved_at = $2, resolution_note = $3 WHERE id = $4",
		string(p.Resolution), micros(now), p.ResolutionNote, p.ID); err != nil {
		return fmt.Errorf("store: refund confirmed: %w", err)
	}
	return writeEvents(ctx, tx, p.MerchantID, p.Environment, p, now, kassa.EventPaymentUpdated)
}

// refundRetry carries a transfer that moved nothing to its refund: pending again
// with the reason while its payout tries again, failed once it gave up.
func (db *DB) refundRetry(ctx context.Context, tx txq, id, reason string, failed bool, now time.Time) error {
	r, err := db.refund(ctx, tx, 0, id, db.forUpdate())
	if err != nil || (r.Status != kassa.RefundPending && r.Status != kassa.RefundSent) {
		return err
	}
	r.FailureReason, r.TxHash, r.SentAt = reason, "", nil
	r.Status = kassa.RefundPending
	if failed {
		r.Status = kassa.RefundFailed
	}
	return db.saveRefund(ctx, tx, r, now)
}

// refundUnconfirmed takes back the confirmation of a refund whose transfer's block
// left the chain: sent again (the stored transaction is broadcast again), and
// the invoice's amount_refunded without it.
func (db *DB) refundUnconfirmed(ctx context.Context, tx txq, payoutID string, now time.Time) error {
	r, err := db.payoutRefund(ctx, tx, payoutID)
	if err != nil || r == nil || r.Status != kassa.RefundConfirmed {
		return err
	}
	r.Status, r.ConfirmedAt = kassa.RefundSent, nil
	if err := db.addRefunded(ctx, tx, r, -r.AmountUSD, now); err != nil {
		return err
	}
	return db.saveRefund(ctx, tx, r, now)
}

// addRefunded moves the amount_refunded of r's invoice by delta and writes
// invoice.updated with the invoice as it then is (its status does not change).
func (db *DB) addRefunded(ctx context.Context, tx txq, r *kassa.Refund, delta kassa.Millis, now time.Time) error {
	if _, err := tx.ExecContext(ctx, "UPDATE invoices SET amount_refunded = amount_refunded + $1 WHERE id = $2 AND merchant_id = $3",
		int64(delta), r.InvoiceID, r.MerchantID); err != nil {
		return fmt.Errorf("store: amount refunded: %w", err)
	}
	inv, err := db.invoice(ctx, tx, r.MerchantID, r.InvoiceID, "")
	if err != nil {
		return err
	}
	inv.Status = inv.EffectiveStatus(now)
	return writeEvents(ctx, tx, inv.MerchantID, inv.Environment, inv, now, kassa.EventInvoiceUpdated)
}

// SimulateRefunds completes the pending refunds of env on networks no chain
// watcher follows (watched false), as settlement does there: sent and confirmed
// at once with a stand-in transaction hash from hash. It returns how many.
func (db *DB) SimulateRefunds(ctx context.Context, env kassa.Environment, watched func(network string) bool, hash func(refundID string) string) (int, error) {
	rows, err := db.r.QueryContext(ctx, "SELECT id, network FROM refunds WHERE environment = $1 AND status = $2 ORDER BY created_at LIMIT 100",
		string(env), string(kassa.RefundPending))
	if err != nil {
		return 0, fmt.Errorf("store: refunds to simulate: %w", err)
	}
	var ids []string
	for rows.Next() {
		var id, network string
		if err := rows.Scan(&id, &network); err != nil {
			rows.Close()
			return 0, fmt.Errorf("store: refunds to simulate: %w", err)
		}
		if !watched(network) {
			ids = append(ids, id)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, fmt.Errorf("store: refunds to simulate: %w", err)
	}
	done := 0
	for _, id := range ids {
		err := db.tx(ctx, func(tx txq) error {
			r, err := db.refund(ctx, tx, 0, id, db.forUpdate())
			if err != nil || r.Status != kassa.RefundPending {
				return err
			}
			now := db.clock()
			r.Status, r.TxHash, r.SentAt = kassa.RefundSent, hash(r.ID), &now
			if err := db.saveRefund(ctx, tx, r, now); err != nil {
				return err
			}
			done++
			return db.refundConfirmed(ctx, tx, r.ID, r.TxHash, now)
		})
		if err != nil {
			return done, err
		}
	}
	return done, nil
}
