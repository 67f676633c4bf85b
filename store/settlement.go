package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/big"
	"time"

	"github.com/kassapay/kassa"
)

var _ kassa.SettlementService = (*DB)(nil)

// ClaimSettlements moves up to limit confirmed receipts from pending to processing
// in one transaction (DB.claim: several workers and instances never claim the same
// receipt) and returns them with their destination. A receipt still processing
// after lease (its worker's process died) is claimed again, unless a payout holds
// it: a sweep on chain finishes it (RecordTx). Executors must therefore be
// idempotent per receipt id.
func (db *DB) ClaimSettlements(ctx context.Context, limit int, lease time.Duration) ([]kassa.SettlementJob, error) {
	var jobs []kassa.SettlementJob
	now := db.clock()
	err := db.tx(ctx, func(tx txq) error {
		jobs = nil
		return db.claim(ctx, tx, claimSpec{table: "receipts", key: "id",
			due: "(settlement_status = $1 OR (settlement_status = $2 AND settlement_claimed_at <= $3 AND payout_id IS NULL)) AND " +
				settlesSQL,
			args:  []any{string(kassa.SettlementPending), string(kassa.SettlementProcessing), micros(now.Add(-lease))},
			order: "seen_at", limit: limit,
			lease: []assign{{"settlement_status", string(kassa.SettlementProcessing)}, {"settlement_claimed_at", micros(now)}},
		}, func(ids []string) ([]string, error) {
			var err error
			if jobs, err = db.loadSettlementJobs(ctx, tx, ids); err != nil {
				return nil, err
			}
			kept := make([]string, len(jobs)) // lease only what was loaded
			for i, j := range jobs {
				kept[i] = j.ReceiptID
			}
			return kept, nil
		})
	})
	return jobs, err
}

// settlesSQL says which receipts settle to the merchant: counted money
// (confirmed, underpaid), and money a merchant dismissed (kept without credit)
// that is still on the canonical chain; a dismissed transfer a reorganisation
// took away has nothing to move.
const settlesSQL = `(status IN ('confirmed', 'underpaid') OR (status = 'manual_retry' AND resolution = 'dismissed'
	AND NOT (block_number > 0 AND block_hash = '')))`

// loadSettlementJobs reads the claimed receipts ids with their destinations.
func (db *DB) loadSettlementJobs(ctx context.Context, tx txq, ids []string) ([]kassa.SettlementJob, error) {
	rows, err := tx.QueryContext(ctx, `SELECT r.id, r.invoice_id, r.merchant_id, r.environment, r.network,
		r.token_id, r.amount_units, i.receiver_override_enabled, i.receiver_override_address, m.settlement,
		COALESCE(a.address, ''), COALESCE(a.address_index, 0)
		FROM receipts r JOIN invoices i ON i.id = r.invoice_id JOIN merchants m ON m.id = r.merchant_id
		LEFT JOIN payment_addresses a ON a.invoice_id = r.invoice_id AND a.network = r.network
		WHERE `+db.keyIn("r.id", 1)+" ORDER BY r.seen_at", db.keyList(ids))
	if err != nil {
		return nil, fmt.Errorf("store: due settlements: %w", err)
	}
	defer rows.Close()
	var jobs []kassa.SettlementJob
	for rows.Next() {
		j, err := scanJob(rows)
		if err != nil {
			return nil, err
		}
		jobs = append(jobs, j)
	}
	return jobs, rows.Err()
}

func scanJob(rows *sql.Rows) (kassa.SettlementJob, error) {
	var (
		j             kassa.SettlementJob
		env, units    string
		override      bool
		overrideAddr  sql.Null[string]
		settlementRaw string
		index         int64
	)
	if err := rows.Scan(&j.ReceiptID, &j.InvoiceID, &j.MerchantID, &env, &j.Network, &j.TokenID, &units,
		&override, &overrideAddr, &settlementRaw, &j.DepositAddress, &index); err != nil {
		return j, fmt.Errorf("store: due settlements: %w", err)
	}
	j.Environment = kassa.Environment(env)
	amount, ok := new(big.Int).SetString(units, 10)
	if !ok {
		return j, fmt.Errorf("store: receipt %s: bad amount %q", j.ReceiptID, units)
	}
	j.AmountUnits = amount
	settlement, err := decodeSettlement(settlementRaw)
	if err != nil {
		return j, err
	}
	j.DepositIndex = uint32(index)
	j.TargetNetwork = settlement[j.Environment].Network
	switch {
	case override && overrideAddr.Valid:
		j.To = overrideAddr.V
	case settlement[j.Environment].Address != "":
		j.To = settlement[j.Environment].Address
	}
	return j, nil
}

// FinishSettlement records the outcome of a processing receipt and writes its
// invoice_payment.updated event in the same transaction.
func (db *DB) FinishSettlement(ctx context.Context, receiptID string, status kassa.SettlementStatus, txHash, reason string) error {
	switch status {
	case kassa.SettlementSettled, kassa.SettlementFailed, kassa.SettlementManual:
	default:
		return fmt.Errorf("store: %q does not finish a settlement", status)
	}
	return db.tx(ctx, func(tx txq) error { return db.finishSettlement(ctx, tx, receiptID, status, txHash, reason) })
}

// finishSettlement is FinishSettlement inside the caller's transaction.
func (db *DB) finishSettlement(ctx context.Context, tx txq, receiptID string, status kassa.SettlementStatus, txHash, reason string) error {
	r, err := scanReceipt(tx.QueryRowContext(ctx, "SELECT "+receiptSelect+" FROM receipts WHERE id = $1"+db.forUpdate(), receiptID))
	if errors.Is(err, sql.ErrNoRows) {
		return kassa.NotFound("receipt")
	}
	if err != nil {
		return fmt.Errorf("store: finish settlement: %w", err)
	}
	if r.Settlement != kassa.SettlementProcessing {
		return kassa.Errorf(kassa.KindConflict, "settlement_not_processing", "Receipt %s is %s, not processing.", r.ID, r.Settlement)
	}
	if status == kassa.SettlementFailed && r.AttentionReason == "" {
		r.AttentionReason = kassa.AttentionSettlementFailed
	}
	if _, err := tx.ExecContext(ctx, `UPDATE receipts SET settlement_status = $1, settlement_tx_hash = $2,
		settlement_reason = $3, attention_reason = $4 WHERE id = $5`,
		string(status), nullIfEmpty(txHash), nullIfEmpty(reason), string(r.AttentionReason), r.ID); err != nil {
		return fmt.Errorf("store: finish settlement: %w", err)
	}
	r.Settlement, r.SettlementTxHash = status, stringOrNil(sql.Null[string]{V: txHash, Valid: txHash != ""})
	tx.note(note{kind: noteSettled, network: r.Network, settlement: status})
	now := db.clock()
	if err := writeEvents(ctx, tx, r.MerchantID, r.Environment, r, now, kassa.EventPaymentUpdated); err != nil {
		return err
	}
	return db.followSettlement(ctx, tx, r, now)
}

func nullIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}
