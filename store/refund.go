package store

import (
	"context"
	"crypto/subtle"
	"database/sql"
	"errors"
	"fmt"
	"math/big"
	"time"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/outbox"
	"github.com/kassapay/kassa/refund"
)

const refundColumns = `id, invoice_id, payment_id, merchant_id, environment, status, amount_usd, rate, network,
	token_id, token_symbol, decimals, amount_units, address, claim_hash, claim_expires_at, tx_hash, reason,
	failure_reason, created_at, sent_at, confirmed_at, paid_by, watch_from, seen_block_number, seen_block_hash,
	seen_log_index`

func scanRefund(s scanner) (*kassa.Refund, error) {
	var (
		r                     kassa.Refund
		env, status, rate     string
		units                 string
		usd                   int64
		expires, sent, confrm sql.Null[int64]
		created               int64
		paidBy, seenHash      string
		watchFrom, seenBlock  int64
		seenLog               int64
	)
	if err := s.Scan(&r.ID, &r.InvoiceID, &r.PaymentID, &r.MerchantID, &env, &status, &usd, &rate, &r.Network,
		&r.TokenID, &r.TokenSymbol, &r.Decimals, &units, &r.Address, &r.ClaimHash, &expires, &r.TxHash, &r.Reason,
		&r.FailureReason, &created, &sent, &confrm, &paidBy, &watchFrom, &seenBlock, &seenHash, &seenLog); err != nil {
		return nil, err
	}
	if paidBy == kassa.RefundPaidByMerchant {
		r.OwnWallet = &kassa.OwnWalletPay{WatchFrom: uint64(watchFrom)}
		if seenHash != "" {
			r.OwnWallet.Seen = &kassa.Transfer{Network: r.Network, TxHash: r.TxHash, LogIndex: seenLog,
				Block: kassa.BlockRef{Number: uint64(seenBlock), Hash: seenHash}, To: r.Address}
		}
	}
	amount, ok := new(big.Int).SetString(units, 10)
	if !ok {
		return nil, fmt.Errorf("store: refund %s: bad amount %q", r.ID, units)
	}
	r.Environment, r.Status, r.Rate, r.AmountUSD, r.AmountUnits = kassa.Environment(env), kassa.RefundStatus(status),
		kassa.RefundRate(rate), kassa.Millis(usd), amount
	r.CreatedAt, r.SentAt, r.ConfirmedAt = fromMicros(created), timeOrNil(sent), timeOrNil(confrm)
	if expires.Valid {
		r.ClaimExpires = fromMicros(expires.V)
	}
	return &r, nil
}

// CreateRefund locks the merchant's invoice, asks decide, the refund service's
// rule, with its payments and refunds, and stores the refund as decide planned
// it with refund.created, in one transaction: two refunds created at once are
// decided one after the other on what the first left. The store decides nothing.
func (db *DB) CreateRefund(ctx context.Context, merchantID int64, invoiceID string, req refund.Request,
	decide refund.CreateDecision) (*kassa.Refund, error) {
	var out *kassa.Refund
	err := db.tx(ctx, func(tx txq) error {
		inv, err := db.invoice(ctx, tx, merchantID, invoiceID, db.forUpdate())
		if err != nil {
			return err
		}
		pays, err := receipts(ctx, tx, inv.ID, 0)
		if err != nil {
			return err
		}
		refunds, err := db.invoiceRefunds(ctx, tx, inv.ID)
		if err != nil {
			return err
		}
		plan, err := decide(inv, pays, refunds)
		if err != nil {
			return err
		}
		now := db.clock()
		r := &kassa.Refund{ID: req.ID, InvoiceID: inv.ID, PaymentID: req.PaymentID, MerchantID: inv.MerchantID,
			Environment: inv.Environment, Status: kassa.RefundPending, AmountUSD: plan.AmountUSD, Rate: req.Rate,
			Network: plan.Network, TokenID: plan.TokenID, TokenSymbol: req.Token.Symbol, Decimals: req.Token.Decimals,
			AmountUnits: plan.AmountUnits, Address: req.Address, Reason: req.Reason, CreatedAt: now}
		var expires any
		if r.Address == "" {
			r.Status, r.ClaimHash, r.ClaimExpires = kassa.RefundAwaitingAddress, req.ClaimHash, now.Add(kassa.RefundClaimTTL)
			expires = micros(r.ClaimExpires)
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO refunds (id, invoice_id, payment_id, merchant_id, environment,
			status, amount_usd, rate, network, token_id, token_symbol, decimals, amount_units, address, claim_hash,
			claim_expires_at, reason, created_at, updated_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $18)`,
			r.ID, r.InvoiceID, r.PaymentID, r.MerchantID, string(r.Environment), string(r.Status), int64(r.AmountUSD),
			string(r.Rate), r.Network, r.TokenID, r.TokenSymbol, r.Decimals, r.AmountUnits.String(), r.Address,
			r.ClaimHash, expires, r.Reason, micros(now)); err != nil {
			return fmt.Errorf("store: create refund: %w", err)
		}
		out = r
		return writeEvents(ctx, tx, r.MerchantID, r.Environment, r, now, kassa.EventRefundCreated)
	})
	return out, err
}

// invoiceRefunds lists an invoice's refunds through q, newest first.
func (db *DB) invoiceRefunds(ctx context.Context, q queryer, invoiceID string) ([]*kassa.Refund, error) {
	rows, err := q.QueryContext(ctx, "SELECT "+refundColumns+` FROM refunds WHERE invoice_id = $1
		ORDER BY created_at DESC, id DESC`, invoiceID)
	if err != nil {
		return nil, fmt.Errorf("store: refunds: %w", err)
	}
	defer rows.Close()
	out := []*kassa.Refund{}
	for rows.Next() {
		r, err := scanRefund(rows)
		if err != nil {
			return nil, fmt.Errorf("store: refunds: %w", err)
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// refund loads one refund through q; merchantID 0 means any merchant's.
func (db *DB) refund(ctx context.Context, q queryer, merchantID int64, id, lock string) (*kassa.Refund, error) {
	if !kassa.ValidUUID(id) {
		return nil, kassa.NotFound("refund")
	}
	r, err := scanRefund(q.QueryRowContext(ctx, "SELECT "+refundColumns+` FROM refunds
		WHERE id = $1 AND (merchant_id = $2 OR $2 = 0)`+lock, id, merchantID))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, kassa.NotFound("refund")
	}
	if err != nil {
		return nil, fmt.Errorf("store: load refund: %w", err)
	}
	return r, nil
}

// Refund reads one of the merchant's refunds in p's environment.
func (db *DB) Refund(ctx context.Context, p kassa.Principal, id string) (*kassa.Refund, error) {
	r, err := db.refund(ctx, db.r, p.MerchantID, id, "")
	if err != nil {
		return nil, err
	}
	if r.Environment != p.Environment {
		return nil, kassa.NotFound("refund")
	}
	return r, nil
}

// InvoiceRefunds lists one of the merchant's invoices' refunds, newest first.
func (db *DB) InvoiceRefunds(ctx context.Context, p kassa.Principal, invoiceID string) ([]*kassa.Refund, error) {
	inv, err := db.invoice(ctx, db.r, p.MerchantID, invoiceID, "")
	if err != nil {
		return nil, err
	}
	if inv.Environment != p.Environment {
		return nil, kassa.NotFound("invoice")
	}
	return db.invoiceRefunds(ctx, db.r, inv.ID)
}

// CancelRefund locks the merchant's refund and its payout, if any, and asks
// decide, the refund service's rule, with the payout's status ("" for none); when
// decide allows it, the payout not yet signed fails (one failed already stays so)
// and the refund is canceled with refund.updated, in one transaction. The store
// decides nothing.
func (db *DB) CancelRefund(ctx context.Context, merchantID int64, id string,
	decide func(r *kassa.Refund, payout outbox.PayoutStatus) error) (*kassa.Refund, error) {
	var out *kassa.Refund
	err := db.tx(ctx, func(tx txq) error {
		r, payoutID, payout, err := db.lockRefundPayout(ctx, tx, merchantID, id)
		if err != nil {
			return err
		}
		if err := decide(r, payout); err != nil {
			return err
		}
		now := db.clock()
		if payoutID != "" && payout != outbox.PayoutFailed {
			if err := setPayout(ctx, tx, payoutID, "status = $1, reason = $2, updated_at = $3",
				string(outbox.PayoutFailed), "refund canceled", micros(now)); err != nil {
				return err
			}
		}
		r.Status = kassa.RefundCanceled
		out = r
		return db.saveRefund(ctx, tx, r, now)
	})
	return out, err
}

// lockRefundPayout locks the merchant's refund and its payout, if any: the
// payout's id and status, both "" for none.
func (db *DB) lockRefundPayout(ctx context.Context, tx txq, merchantID int64, id string) (*kassa.Refund, string, outbox.PayoutStatus, error) {
	r, err := db.refund(ctx, tx, merchantID, id, db.forUpdate())
	if err != nil {
		return nil, "", "", err
	}
	var payoutID, status string
	err = tx.QueryRowContext(ctx, "SELECT id, status FROM payouts WHERE refund_id = $1"+db.forUpdate(), r.ID).Scan(&payoutID, &status)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return nil, "", "", fmt.Errorf("store: refund payout: %w", err)
	}
	return r, payoutID, outbox.PayoutStatus(status), nil
}

// ClaimRefund locks refund id and asks decide, the refund service's rule (its
// claim token, expiry and status), at the store's time; when decide allows it,
// the refund gets the payor's address and is pending, with refund.updated
// (refund.Store). The store decides nothing.
func (db *DB) ClaimRefund(ctx context.Context, id, address string, decide func(r *kassa.Refund, now time.Time) error) (*kassa.Refund, error) {
	var out *kassa.Refund
	err := db.tx(ctx, func(tx txq) error {
		r, err := db.refund(ctx, tx, 0, id, db.forUpdate())
		if err != nil {
			return err
		}
		now := db.clock()
		if err := decide(r, now); err != nil {
			return err
		}
		r.Status, r.Address = kassa.RefundPending, address
		out = r
		return db.saveRefund(ctx, tx, r, now)
	})
	return out, err
}

// saveRefund stores a refund's changed fields with refund.updated.
func (db *DB) saveRefund(ctx context.Context, tx txq, r *kassa.Refund, now time.Time) error {
	if _, err := tx.ExecContext(ctx, `UPDATE refunds SET status = $1, address = $2, tx_hash = $3, failure_reason = $4,
		sent_at = $5, confirmed_at = $6, updated_at = $7 WHERE id = $8`,
		string(r.Status), r.Address, r.TxHash, r.FailureReason, nullMicros(r.SentAt), nullMicros(r.ConfirmedAt),
		micros(now), r.ID); err != nil {
		return fmt.Errorf("store: save refund: %w", err)
	}
	return writeEvents(ctx, tx, r.MerchantID, r.Environment, r, now, kassa.EventRefundUpdated)
}

// RefundByClaim reads a refund and its shop's name for its claim link when
// tokenHash is its claim's (refund.Store); a refund created with an
// address has no claim and is never found this way.
func (db *DB) RefundByClaim(ctx context.Context, id string, tokenHash []byte) (*refund.Claim, error) {
	r, err := db.refund(ctx, db.r, 0, id, "")
	if err != nil {
		return nil, err
	}
	if len(r.ClaimHash) == 0 || subtle.ConstantTimeCompare(r.ClaimHash, tokenHash) != 1 {
		return nil, kassa.NotFound("refund")
	}
	m, err := db.merchant(ctx, db.r, r.MerchantID, "")
	if err != nil {
		return nil, err
	}
	shop := m.CompanyName
	if shop == "" {
		shop = m.Name
	}
	return &refund.Claim{Refund: r, Shop: shop}, nil
}
