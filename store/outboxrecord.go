package store

import (
	"context"
	"fmt"
	"time"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/commerce"
	"github.com/kassapay/kassa/outbox"
)

// RecordTx records what the chain says of an outbox transaction and carries it to
// its payout, the payout's receipts or order, with their events, in one
// transaction (chain.PayoutStore).
func (db *DB) RecordTx(ctx context.Context, txID string, o outbox.Outcome) error {
	return db.tx(ctx, func(tx txq) error {
		t, err := scanOutboxTx(tx.QueryRowContext(ctx, "SELECT "+outboxColumns+" FROM outbox_txs WHERE id = $1"+db.forUpdate(), txID))
		if err != nil {
			return err
		}
		now := db.clock()
		if t.Status == outbox.TxReverted || t.Status == outbox.TxDisplaced {
			return nil // final: its payout moved on
		}
		if t.Status == outbox.TxConfirmed && (o.Status != outbox.TxConfirmed || o.MinedHash != t.MinedHash || o.Block.Hash != t.BlockHash) {
			// A reorganisation took the confirmed transaction's block away.
			if err := db.unconfirm(ctx, tx, t, now); err != nil {
				return err
			}
		}
		if _, err := tx.ExecContext(ctx, `UPDATE outbox_txs SET status = $1, mined_hash = $2, block_number = $3,
			block_hash = $4, gas_used = $5, reason = $6, updated_at = $7 WHERE id = $8`,
			string(o.Status), o.MinedHash, int64(o.Block.Number), o.Block.Hash, int64(o.GasUsed), o.Reason, micros(now), t.ID); err != nil {
			return fmt.Errorf("store: record transaction: %w", err)
		}
		if t.PayoutID == "" || t.Status == o.Status {
			return nil
		}
		switch o.Status {
		case outbox.TxConfirmed:
			if t.Purpose == outbox.TxTransfer {
				return db.payoutDone(ctx, tx, t.PayoutID, o.MinedHash, now)
			}
		case outbox.TxReverted, outbox.TxDisplaced:
			return db.payoutRetry(ctx, tx, t, o.Reason, now)
		}
		return nil
	})
}

// payoutDone completes a payout whose transfer is confirmed: its receipts are
// settled with the transaction, or its order refunded.
func (db *DB) payoutDone(ctx context.Context, tx txq, id, hash string, now time.Time) error {
	p, err := scanPayout(tx.QueryRowContext(ctx, "SELECT "+payoutColumns+" FROM payouts WHERE id = $1"+db.forUpdate(), id))
	if err != nil {
		return fmt.Errorf("store: payout %s: %w", id, err)
	}
	if err := setPayout(ctx, tx, p.ID, "status = $1, reason = '', updated_at = $2", string(outbox.PayoutDone), micros(now)); err != nil {
		return err
	}
	if p.RefundID != "" {
		return db.refundConfirmed(ctx, tx, p.RefundID, hash, now)
	}
	if p.Kind == outbox.PayoutRefund {
		return db.refundSent(ctx, tx, p, hash, now)
	}
	ids, err := payoutReceipts(ctx, tx, p.ID, kassa.SettlementProcessing)
	if err != nil {
		return err
	}
	for _, rid := range ids {
		if err := db.finishSettlement(ctx, tx, rid, kassa.SettlementSettled, hash, ""); err != nil {
			return err
		}
	}
	return nil
}

// refundSent moves a refund payout's order to refunded with the transaction.
func (db *DB) refundSent(ctx context.Context, tx txq, p *outbox.Payout, hash string, now time.Time) error {
	o, err := db.order(ctx, tx, p.MerchantID, p.OrderID, db.forUpdate())
	if err != nil {
		return err
	}
	if err := o.Advance(commerce.Step{To: commerce.OrderRefunded, TxHash: hash}, now); err != nil {
		return nil // already refunded another way (the devnet simulation): nothing to move
	}
	return saveOrder(ctx, tx, o, now)
}

// FailAttempt counts a transfer that cannot be made (chain.PayoutStore).
func (db *DB) FailAttempt(ctx context.Context, payoutID, reason string) error {
	return db.tx(ctx, func(tx txq) error {
		return db.payoutRetry(ctx, tx, &outbox.Tx{PayoutID: payoutID}, reason, db.clock())
	})
}

// payoutRetry handles a transfer or top-up that can never move money (reverted,
// or its nonce taken): the payout is queued again to sign a new one, or fails
// once outbox.MaxPayoutAttempts ran out, failing its receipts with the reason.
func (db *DB) payoutRetry(ctx context.Context, tx txq, t *outbox.Tx, reason string, now time.Time) error {
	p, err := scanPayout(tx.QueryRowContext(ctx, "SELECT "+payoutColumns+" FROM payouts WHERE id = $1"+db.forUpdate(), t.PayoutID))
	if err != nil {
		return fmt.Errorf("store: payout %s: %w", t.PayoutID, err)
	}
	if p.Status == outbox.PayoutDone || p.Status == outbox.PayoutFailed || (p.TxID != t.ID && p.TopupTxID != t.ID) {
		return nil // t.ID "" with no transaction signed: a transfer that could not be made
	}
	p.Attempts++
	if p.Attempts < outbox.MaxPayoutAttempts {
		if err := setPayout(ctx, tx, p.ID, "status = $1, tx_id = NULL, topup_tx_id = NULL, attempts = $2, reason = $3, updated_at = $4",
			string(outbox.PayoutQueued), p.Attempts, reason, micros(now)); err != nil {
			return err
		}
		if p.RefundID != "" {
			return db.refundRetry(ctx, tx, p.RefundID, reason, false, now)
		}
		return nil
	}
	if err := setPayout(ctx, tx, p.ID, "status = $1, attempts = $2, reason = $3, updated_at = $4",
		string(outbox.PayoutFailed), p.Attempts, reason, micros(now)); err != nil {
		return err
	}
	if p.RefundID != "" {
		return db.refundRetry(ctx, tx, p.RefundID, reason, true, now)
	}
	if p.Kind == outbox.PayoutRefund {
		o, err := db.order(ctx, tx, p.MerchantID, p.OrderID, db.forUpdate())
		if err != nil {
			return err
		}
		if o.Refund.Status != commerce.RefundPending {
			return nil // refunded another way meanwhile
		}
		o.RefundFailedFor(reason, now)
		return saveOrder(ctx, tx, o, now)
	}
	ids, err := payoutReceipts(ctx, tx, p.ID, kassa.SettlementProcessing)
	if err != nil {
		return err
	}
	for _, rid := range ids {
		if err := db.finishSettlement(ctx, tx, rid, kassa.SettlementFailed, "", "settlement transfer failed: "+reason); err != nil {
			return err
		}
	}
	return nil
}

// unconfirm takes back a confirmed transaction whose block left the chain: it is
// pending again (the sender broadcasts what was stored), and a transfer's payout
// is sending again with its receipts processing, each with its event. A refunded
// order stays refunded: the same signed refund is sent again.
func (db *DB) unconfirm(ctx context.Context, tx txq, t *outbox.Tx, now time.Time) error {
	if t.PayoutID == "" || t.Purpose != outbox.TxTransfer {
		return nil
	}
	if err := setPayout(ctx, tx, t.PayoutID, "status = $1, updated_at = $2", string(outbox.PayoutSending), micros(now)); err != nil {
		return err
	}
	if err := db.refundUnconfirmed(ctx, tx, t.PayoutID, now); err != nil {
		return err
	}
	ids, err := payoutReceipts(ctx, tx, t.PayoutID, kassa.SettlementSettled)
	if err != nil {
		return err
	}
	for _, rid := range ids {
		r, err := scanReceipt(tx.QueryRowContext(ctx, "SELECT "+receiptSelect+" FROM receipts WHERE id = $1"+db.forUpdate(), rid))
		if err != nil {
			return fmt.Errorf("store: unsettle: %w", err)
		}
		if _, err := tx.ExecContext(ctx, `UPDATE receipts SET settlement_status = $1, settlement_tx_hash = NULL
			WHERE id = $2`, string(kassa.SettlementProcessing), rid); err != nil {
			return fmt.Errorf("store: unsettle: %w", err)
		}
		r.Settlement, r.SettlementTxHash = kassa.SettlementProcessing, nil
		if err := writeEvents(ctx, tx, r.MerchantID, r.Environment, r, now, kassa.EventPaymentUpdated); err != nil {
			return err
		}
	}
	return nil
}

// payoutReceipts lists the ids of a payout's receipts in settlement status s.
func payoutReceipts(ctx context.Context, tx queryer, payoutID string, s kassa.SettlementStatus) ([]string, error) {
	rows, err := tx.QueryContext(ctx, "SELECT id FROM receipts WHERE payout_id = $1 AND settlement_status = $2 ORDER BY seen_at, id",
		payoutID, string(s))
	if err != nil {
		return nil, fmt.Errorf("store: payout receipts: %w", err)
	}
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, fmt.Errorf("store: payout receipts: %w", err)
		}
		ids = append(ids, id)
	}
	return ids, rows.Err()
}
