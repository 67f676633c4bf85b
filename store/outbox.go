package store

import (
	"context"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"math/big"
	"time"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/outbox"
)

// AddTx allocates tx's nonce, signs it and stores it with its first version in
// one transaction, before anything is broadcast: the nonce is the larger of the
// sender's stored next nonce and minNonce (what the chain says it has used), so
// transactions sent by hand are stepped over. One allocator per (network,
// sender): a sender's nonces are allocated under its row's lock. A top-up moves
// its payout to funding, a transfer to sending.
func (db *DB) AddTx(ctx context.Context, t *outbox.Tx, minNonce uint64, sign func(nonce uint64) (outbox.Attempt, error)) (*outbox.Tx, error) {
	out := *t
	err := db.tx(ctx, func(tx txq) error {
		var next int64
		err := tx.QueryRowContext(ctx, "SELECT next FROM outbox_nonces WHERE network = $1 AND address = $2"+db.forUpdate(),
			t.Network, t.From).Scan(&next)
		switch {
		case errors.Is(err, sql.ErrNoRows):
			if _, err := tx.ExecContext(ctx, "INSERT INTO outbox_nonces (network, address, next) VALUES ($1, $2, 0)",
				t.Network, t.From); err != nil {
				return fmt.Errorf("store: nonce: %w", err)
			}
		case err != nil:
			return fmt.Errorf("store: nonce: %w", err)
		}
		nonce := max(uint64(next), minNonce)
		if t.Purpose == outbox.TxFiller {
			nonce = minNonce // a filler takes exactly the missing nonce
		}
		a, err := sign(nonce)
		if err != nil {
			return err
		}
		now := db.clock()
		out.ID, out.Nonce, out.Status, out.CreatedAt, out.Attempts = kassa.NewUUID(), nonce, outbox.TxPending, now, nil
		if _, err := tx.ExecContext(ctx, `INSERT INTO outbox_txs (id, environment, network, from_address, from_index, nonce,
			purpose, payout_id, to_address, value_units, data, gas_limit, status, created_at, updated_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $14)`,
			out.ID, string(out.Environment), out.Network, out.From, out.FromIndex, int64(nonce), out.Purpose, emptyNil(out.PayoutID),
			out.To, out.Value.String(), hex.EncodeToString(out.Data), int64(out.GasLimit), string(out.Status), micros(now)); err != nil {
			return fmt.Errorf("store: add transaction: %w", err)
		}
		if _, err := tx.ExecContext(ctx, "UPDATE outbox_nonces SET next = $1 WHERE network = $2 AND address = $3",
			int64(max(uint64(next), nonce+1)), t.Network, t.From); err != nil {
			return fmt.Errorf("store: nonce: %w", err)
		}
		if err := insertAttempt(ctx, tx, out.ID, a, now); err != nil {
			return err
		}
		out.Attempts = []outbox.Attempt{a}
		if err := advancePayout(ctx, tx, &out); err != nil {
			return err
		}
		if out.Purpose != outbox.TxTransfer {
			return nil
		}
		return db.refundSigned(ctx, tx, out.PayoutID, a.Hash, now)
	})
	if err != nil {
		return nil, err
	}
	return &out, nil
}

// advancePayout moves the payout of a top-up to funding and of a transfer to
// sending, only from queued or funding and, for a transfer, only while the payout
// still owes what the transfer pays: a receipt that joined the sweep after it was
// read, or another sender that got there first, rolls the whole AddTx back, so a
// receipt is never marked settled by a transfer that did not carry it.
func advancePayout(ctx context.Context, tx queryer, t *outbox.Tx) error {
	var res sql.Result
	var err error
	open := []any{string(outbox.PayoutQueued), string(outbox.PayoutFunding)}
	switch t.Purpose {
	case outbox.TxTopup:
		res, err = tx.ExecContext(ctx, `UPDATE payouts SET status = $1, topup_tx_id = $2, reason = ''
			WHERE id = $3 AND status IN ($4, $5)`, append([]any{string(outbox.PayoutFunding), t.ID, t.PayoutID}, open...)...)
	case outbox.TxTransfer:
		if t.PayoutAmount == nil {
			return fmt.Errorf("store: add transaction: a transfer without its payout amount")
		}
		res, err = tx.ExecContext(ctx, `UPDATE payouts SET status = $1, tx_id = $2, reason = ''
			WHERE id = $3 AND status IN ($4, $5) AND amount_units = $6`,
			append([]any{string(outbox.PayoutSending), t.ID, t.PayoutID}, append(open, t.PayoutAmount.String())...)...)
	default:
		return nil
	}
	if err != nil {
		return fmt.Errorf("store: update payout: %w", err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return fmt.Errorf("store: update payout: %w", err)
	} else if n != 1 {
		return kassa.Errorf(kassa.KindConflict, "payout_changed",
			"Payout %s changed since it was read (a receipt joined it, or another sender moved it); it is planned again.", t.PayoutID)
	}
	return nil
}

// setPayout updates payout id with set, whose placeholders are $1, $2…; the id is
// the next one.
func setPayout(ctx context.Context, tx queryer, id, set string, args ...any) error {
	args = append(args, id)
	if _, err := tx.ExecContext(ctx, fmt.Sprintf("UPDATE payouts SET %s WHERE id = $%d", set, len(args)), args...); err != nil {
		return fmt.Errorf("store: update payout: %w", err)
	}
	return nil
}

func insertAttempt(ctx context.Context, tx queryer, txID string, a outbox.Attempt, now time.Time) error {
	if _, err := tx.ExecContext(ctx, `INSERT INTO outbox_attempts (hash, tx_id, raw, tip, fee_cap, signed_at, created_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7)`, a.Hash, txID, hex.EncodeToString(a.Raw), a.Tip.String(), a.FeeCap.String(),
		int64(a.SignedAt), micros(now)); err != nil {
		return fmt.Errorf("store: add signed transaction: %w", err)
	}
	return nil
}

// AddAttempt stores another signed version (a fee bump) of a pending transaction.
func (db *DB) AddAttempt(ctx context.Context, txID string, a outbox.Attempt) error {
	return db.tx(ctx, func(tx txq) error {
		var status string
		if err := tx.QueryRowContext(ctx, "SELECT status FROM outbox_txs WHERE id = $1"+db.forUpdate(), txID).Scan(&status); err != nil {
			return fmt.Errorf("store: add signed transaction: %w", err)
		}
		if status != string(outbox.TxPending) {
			return kassa.Errorf(kassa.KindConflict, "tx_not_pending", "Transaction %s is %s.", txID, status)
		}
		return insertAttempt(ctx, tx, txID, a, db.clock())
	})
}

// NextNonce is the nonce AddTx would allocate next for from, before the chain's say.
func (db *DB) NextNonce(ctx context.Context, network, from string) (uint64, error) {
	var next int64
	err := db.r.QueryRowContext(ctx, "SELECT next FROM outbox_nonces WHERE network = $1 AND address = $2", network, from).Scan(&next)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("store: nonce: %w", err)
	}
	return uint64(next), nil
}

const outboxColumns = `id, environment, network, from_address, from_index, nonce, purpose, COALESCE(payout_id, ''), to_address,
	value_units, data, gas_limit, status, mined_hash, block_number, block_hash, gas_used, created_at`

// OutboxTxs lists network's pending transactions and its confirmed ones mined
// above since, by sender and nonce, each with its signed versions; since
// ^uint64(0) lists the pending ones only.
func (db *DB) OutboxTxs(ctx context.Context, env kassa.Environment, network string, since uint64) ([]*outbox.Tx, error) {
	since = min(since, math.MaxInt64) // as int64 ^uint64(0) would be -1: every confirmed transaction
	rows, err := db.r.QueryContext(ctx, "SELECT "+outboxColumns+` FROM outbox_txs WHERE environment = $1 AND network = $2
		AND (status = $3 OR (status = $4 AND block_number > $5)) ORDER BY from_address, nonce`,
		string(env), network, string(outbox.TxPending), string(outbox.TxConfirmed), int64(since))
	if err != nil {
		return nil, fmt.Errorf("store: outbox: %w", err)
	}
	var out []*outbox.Tx
	for rows.Next() {
		t, err := scanOutboxTx(rows)
		if err != nil {
			rows.Close()
			return nil, err
		}
		out = append(out, t)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: outbox: %w", err)
	}
	for _, t := range out {
		if t.Attempts, err = db.attempts(ctx, t.ID); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func scanOutboxTx(s scanner) (*outbox.Tx, error) {
	var (
		t                          outbox.Tx
		env, value, data, status   string
		nonce, gas, block, used, c int64
	)
	if err := s.Scan(&t.ID, &env, &t.Network, &t.From, &t.FromIndex, &nonce, &t.Purpose, &t.PayoutID, &t.To, &value, &data, &gas,
		&status, &t.MinedHash, &block, &t.BlockHash, &used, &c); err != nil {
		return nil, fmt.Errorf("store: outbox: %w", err)
	}
	v, ok := new(big.Int).SetString(value, 10)
	raw, err := hex.DecodeString(data)
	if !ok || err != nil {
		return nil, fmt.Errorf("store: outbox transaction %s: bad value or data", t.ID)
	}
	t.Environment, t.Nonce, t.Value, t.Data, t.GasLimit = kassa.Environment(env), uint64(nonce), v, raw, uint64(gas)
	t.Status, t.BlockNumber, t.GasUsed, t.CreatedAt = outbox.TxStatus(status), uint64(block), uint64(used), fromMicros(c)
	return &t, nil
}

// attempts returns a transaction's signed versions, oldest first.
func (db *DB) attempts(ctx context.Context, txID string) ([]outbox.Attempt, error) {
	rows, err := db.r.QueryContext(ctx, `SELECT hash, raw, tip, fee_cap, signed_at, created_at FROM outbox_attempts
		WHERE tx_id = $1 ORDER BY created_at, hash`, txID)
	if err != nil {
		return nil, fmt.Errorf("store: signed transactions: %w", err)
	}
	defer rows.Close()
	var out []outbox.Attempt
	for rows.Next() {
		var (
			a                 outbox.Attempt
			raw, tip, feeCap  string
			signedAt, created int64
		)
		if err := rows.Scan(&a.Hash, &raw, &tip, &feeCap, &signedAt, &created); err != nil {
			return nil, fmt.Errorf("store: signed transactions: %w", err)
		}
		var ok1, ok2 bool
		a.Tip, ok1 = new(big.Int).SetString(tip, 10)
		a.FeeCap, ok2 = new(big.Int).SetString(feeCap, 10)
		b, err := hex.DecodeString(raw)
		if !ok1 || !ok2 || err != nil {
			return nil, fmt.Errorf("store: signed transaction %s: bad fields", a.Hash)
		}
		a.Raw, a.SignedAt, a.CreatedAt = b, uint64(signedAt), fromMicros(created)
		out = append(out, a)
	}
	return out, rows.Err()
}
