package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/outbox"
)

// ownWalletPayout is the reason on the payout of a refund the merchant took over
// to pay from their own wallet: it failed unsigned, and is queued again if the
// merchant hands the refund back.
const ownWalletPayout = "withdrawn: the merchant pays this refund from their own wallet"

// PayRefundFromOwnWallet locks the merchant's refund and its payout, if any, and
// asks decide, the refund service's rule, with the payout's status ("" for
// none); when decide allows it, it withdraws the refund from the payout executor
// for the merchant to pay it from their own wallet (refund.OwnWalletStore): its
// payout, while unsigned (queued, or funding: only the gas top-up is signed),
// fails in the same transaction, and the sender's signing, which moves a payout
// only from queued or funding, can no longer take it. The watcher looks for the
// transfer from the block after its network's cursor. A refund already the
// merchant's is answered as it is. The store decides nothing.
func (db *DB) PayRefundFromOwnWallet(ctx context.Context, merchantID int64, id string,
	decide func(r *kassa.Refund, payout outbox.PayoutStatus) error) (*kassa.Refund, error) {
	var out *kassa.Refund
	err := db.tx(ctx, func(tx txq) error {
		r, payout, status, err := db.lockRefundPayout(ctx, tx, merchantID, id)
		if err != nil {
			return err
		}
		if err := decide(r, status); err != nil {
			return err
		}
		out = r
		if r.OwnWallet != nil {
			return nil
		}
		if status == outbox.PayoutQueued || status == outbox.PayoutFunding {
			if err := setPayout(ctx, tx, payout, "status = $1, reason = $2, updated_at = $3",
				string(outbox.PayoutFailed), ownWalletPayout, micros(db.clock())); err != nil {
				return err
			}
		}
		var cursor int64 = -1
		err = tx.QueryRowContext(ctx, "SELECT number FROM chain_cursors WHERE network = $1", r.Network).Scan(&cursor)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("store: chain cursor: %w", err)
		}
		r.OwnWallet = &kassa.OwnWalletPay{WatchFrom: uint64(cursor + 1)}
		r.FailureReason = kassa.OwnWalletWaiting
		return db.saveOwnRefund(ctx, tx, r, db.clock())
	})
	return out, err
}

// LetKassaPayRefund locks the merchant's refund and asks decide, the refund
// service's rule; when decide allows it, it hands a refund the merchant took
// over back to the payout executor (refund.OwnWalletStore): its withdrawn payout
// is queued again (the gas wallet's reason will say why if it is still short);
// without one, the executor queues one. A refund not the merchant's is answered
// as it is. The store decides nothing.
func (db *DB) LetKassaPayRefund(ctx context.Context, merchantID int64, id string, decide func(r *kassa.Refund) error) (*kassa.Refund, error) {
	var out *kassa.Refund
	err := db.tx(ctx, func(tx txq) error {
		r, err := db.refund(ctx, tx, merchantID, id, db.forUpdate())
		if err != nil {
			return err
		}
		if err := decide(r); err != nil {
			return err
		}
		out = r
		if r.OwnWallet == nil {
			return nil
		}
		now := db.clock()
		// A pending refund's failed payout is the one withdrawn for the
		// merchant: a payout that gives up fails its refund, a cancel cancels it.
		if _, err := tx.ExecContext(ctx, `UPDATE payouts SET status = $1, tx_id = NULL, topup_tx_id = NULL, reason = '',
			updated_at = $2 WHERE refund_id = $3 AND status = $4`,
			string(outbox.PayoutQueued), micros(now), r.ID, string(outbox.PayoutFailed)); err != nil {
			return fmt.Errorf("store: requeue refund payout: %w", err)
		}
		r.OwnWallet, r.FailureReason = nil, ""
		return db.saveOwnRefund(ctx, tx, r, now)
	})
	return out, err
}

// saveOwnRefund stores a refund with who pays it and the transfer seen, with
// refund.updated.
func (db *DB) saveOwnRefund(ctx context.Context, tx txq, r *kassa.Refund, now time.Time) error {
	paidBy, watchFrom, block, hash, index := "", int64(0), int64(0), "", int64(0)
	if o := r.OwnWallet; o != nil {
		paidBy, watchFrom = kassa.RefundPaidByMerchant, int64(o.WatchFrom)
		if o.Seen != nil {
			block, hash, index = int64(o.Seen.Block.Number), o.Seen.Block.Hash, o.Seen.LogIndex
		}
	}
	if _, err := tx.ExecContext(ctx, `UPDATE refunds SET paid_by = $1, watch_from = $2, seen_block_number = $3,
		seen_block_hash = $4, seen_log_index = $5 WHERE id = $6`, paidBy, watchFrom, block, hash, index, r.ID); err != nil {
		return fmt.Errorf("store: save refund payor: %w", err)
	}
	return db.saveRefund(ctx, tx, r, now)
}

// OwnWalletRefunds lists env's refunds on network the merchant pays, pending or
// sent, oldest first (chain.OwnWalletWatch).
func (db *DB) OwnWalletRefunds(ctx context.Context, env kassa.Environment, network string) ([]*kassa.Refund, error) {
	return db.ownWalletRefunds(ctx, db.r, env, network, "", "")
}

// ownWalletRefunds lists, through q with lock, env's own-wallet refunds on
// network, pending or sent, oldest first: to address only when it is set.
func (db *DB) ownWalletRefunds(ctx context.Context, q queryer, env kassa.Environment, network, address, lock string) ([]*kassa.Refund, error) {
	rows, err := q.QueryContext(ctx, "SELECT "+refundColumns+` FROM refunds WHERE environment = $1 AND network = $2
		AND status IN ($3, $4) AND paid_by = $5 AND (address = $6 OR $6 = '') ORDER BY created_at, id`+lock,
		string(env), network, string(kassa.RefundPending), string(kassa.RefundSent), kassa.RefundPaidByMerchant, address)
	if err != nil {
		return nil, fmt.Errorf("store: own-wallet refunds: %w", err)
	}
	defer rows.Close()
	var out []*kassa.Refund
	for rows.Next() {
		r, err := scanRefund(rows)
		if err != nil {
			return nil, fmt.Errorf("store: own-wallet refunds: %w", err)
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// RecordOwnWalletTransfer marks sent the own-wallet refund transfer t of token
// tokenID pays, chosen on the locked refunds to its recipient
// (kassa.MatchOwnWalletTransfer), with refund.updated. A transfer already taken
// by a refund (the same transaction and log index) pays no other: the watcher
// may see it again after a failed step. A transfer of Kassa's own (a signed
// payout) pays none. One too small to pay any is noted on the refund it was
// probably meant for (its failure_reason), which keeps waiting.
func (db *DB) RecordOwnWalletTransfer(ctx context.Context, env kassa.Environment, tokenID int64, t kassa.Transfer) (*kassa.Refund, error) {
	if !storable(t.Network) || !storable(t.TxHash) || !storable(t.To) || t.Amount == nil {
		return nil, fmt.Errorf("store: own-wallet transfer: bad transfer %q", t.TxHash)
	}
	hash := strings.ToLower(t.TxHash)
	var out *kassa.Refund
	err := db.tx(ctx, func(tx txq) error {
		out = nil
		waiting, err := db.ownWalletRefunds(ctx, tx, env, t.Network, kassa.ChecksumAddress(t.To), db.forUpdate())
		if err != nil || len(waiting) == 0 {
			return err
		}
		var taken int
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM refunds WHERE network = $1 AND paid_by = $2 AND tx_hash = $3
			AND seen_log_index = $4`, t.Network, kassa.RefundPaidByMerchant, hash, t.LogIndex).Scan(&taken); err != nil {
			return fmt.Errorf("store: own-wallet transfer: %w", err)
		}
		if taken == 0 {
			err = tx.QueryRowContext(ctx, "SELECT COUNT(*) FROM outbox_attempts WHERE hash = $1", hash).Scan(&taken)
			if err != nil {
				return fmt.Errorf("store: own-wallet transfer: %w", err)
			}
		}
		if taken > 0 {
			return nil
		}
		now := db.clock()
		r := kassa.MatchOwnWalletTransfer(waiting, tokenID, t)
		if r == nil {
			short := kassa.ShortOwnWalletTransfer(waiting, tokenID, t)
			if short == nil {
				return nil
			}
			short.FailureReason = fmt.Sprintf("a transfer of %s base units (%s) is less than this refund's %s; waiting for one of the whole amount",
				t.Amount, hash, short.AmountUnits)
			return db.saveOwnRefund(ctx, tx, short, now)
		}
		seen := t
		seen.TxHash = hash
		r.OwnWallet.Seen = &seen
		r.Status, r.TxHash, r.FailureReason, r.SentAt = kassa.RefundSent, hash, "", &now
		out = r
		return db.saveOwnRefund(ctx, tx, r, now)
	})
	return out, err
}

// ConfirmOwnWalletRefunds confirms env's sent own-wallet refunds on network
// whose transfer has confirmations at head, each in its own transaction with
// refundConfirmed (chain.OwnWalletWatch).
func (db *DB) ConfirmOwnWalletRefunds(ctx context.Context, env kassa.Environment, network string, head uint64, confirmations int) (int, error) {
	rs, err := db.OwnWalletRefunds(ctx, env, network)
	if err != nil {
		return 0, err
	}
	done := 0
	for _, r := range rs {
		if r.Status != kassa.RefundSent || r.OwnWallet.Seen == nil || kassa.Confirmations(head, r.OwnWallet.Seen.Block.Number) < confirmations {
			continue
		}
		confirmed := false
		err := db.tx(ctx, func(tx txq) error {
			now := db.clock()
			locked, err := db.refund(ctx, tx, 0, r.ID, db.forUpdate())
			if err != nil || locked.Status != kassa.RefundSent || locked.OwnWallet == nil || locked.OwnWallet.Seen == nil ||
				locked.OwnWallet.Seen.Block.Hash != r.OwnWallet.Seen.Block.Hash {
				return err // moved meanwhile (a reorganisation): counted again next time
			}
			confirmed = true
			return db.refundConfirmed(ctx, tx, r.ID, locked.TxHash, now)
		})
		if err != nil {
			return done, err
		}
		if confirmed {
			done++
		}
	}
	return done, nil
}

// detachOwnWalletRefunds gives back, in a reorganisation's transaction, the
// transfers of own-wallet refunds on network seen in a block above height: the
// refund waits pending again (out of amount_refunded if it was confirmed), and
// the watcher takes the transfer again when it sees it in a canonical block. It
// reports whether it changed any.
func (db *DB) detachOwnWalletRefunds(ctx context.Context, tx txq, network string, above uint64) (bool, error) {
	rows, err := tx.QueryContext(ctx, `SELECT id FROM refunds WHERE network = $1 AND paid_by = $2 AND seen_block_hash <> ''
		AND seen_block_number > $3 ORDER BY created_at, id`, network, kassa.RefundPaidByMerchant, int64(above))
	if err != nil {
		return false, fmt.Errorf("store: detach own-wallet refunds: %w", err)
	}
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return false, fmt.Errorf("store: detach own-wallet refunds: %w", err)
		}
		ids = append(ids, id)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return false, fmt.Errorf("store: detach own-wallet refunds: %w", err)
	}
	now := db.clock()
	for _, id := range ids {
		r, err := db.refund(ctx, tx, 0, id, db.forUpdate())
		if err != nil {
			return false, err
		}
		if r.Status == kassa.RefundConfirmed {
			if err := db.addRefunded(ctx, tx, r, -r.AmountUSD, now); err != nil {
				return false, err
			}
		}
		r.Status, r.TxHash, r.SentAt, r.ConfirmedAt = kassa.RefundPending, "", nil, nil
		r.FailureReason = "the block of your transfer left the chain (a reorganisation): waiting to see it again"
		r.OwnWallet.Seen = nil
		if err := db.saveOwnRefund(ctx, tx, r, now); err != nil {
			return false, err
		}
	}
	return len(ids) > 0, nil
}
