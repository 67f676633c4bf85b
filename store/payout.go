package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/big"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/commerce"
	"github.com/kassapay/kassa/outbox"
	"github.com/kassapay/kassa/settlement"
)

const payoutColumns = `id, kind, environment, network, merchant_id, from_address, from_index, token_id,
	amount_units, to_address, COALESCE(order_id, ''), COALESCE(refund_id, ''), status, COALESCE(topup_tx_id, ''),
	COALESCE(tx_id, ''), attempts, reason, created_at`

func scanPayout(s scanner) (*outbox.Payout, error) {
	var (
		p           outbox.Payout
		env, status string
		units       string
		created     int64
	)
	if err := s.Scan(&p.ID, &p.Kind, &env, &p.Network, &p.MerchantID, &p.From, &p.FromIndex, &p.TokenID,
		&units, &p.To, &p.OrderID, &p.RefundID, &status, &p.TopupTxID, &p.TxID, &p.Attempts, &p.Reason, &created); err != nil {
		return nil, err
	}
	amount, ok := new(big.Int).SetString(units, 10)
	if !ok {
		return nil, fmt.Errorf("store: payout %s: bad amount %q", p.ID, units)
	}
	p.Environment, p.Status, p.Amount, p.CreatedAt = kassa.Environment(env), outbox.PayoutStatus(status), amount, fromMicros(created)
	return &p, nil
}

// QueueSweep adds a processing receipt to the queued sweep of its deposit
// address, token and destination, or queues a new sweep: several receipts on one
// deposit address go in one transfer. The receipt keeps processing.
func (db *DB) QueueSweep(ctx context.Context, job settlement.SettlementJob) (*outbox.Payout, error) {
	if job.DepositAddress == "" || job.To == "" {
		return nil, fmt.Errorf("store: receipt %s: a sweep needs a deposit address and a destination", job.ReceiptID)
	}
	var out *outbox.Payout
	err := db.tx(ctx, func(tx txq) error {
		var status string
		var payout sql.Null[string]
		err := tx.QueryRowContext(ctx, "SELECT settlement_status, payout_id FROM receipts WHERE id = $1"+db.forUpdate(),
			job.ReceiptID).Scan(&status, &payout)
		if err != nil {
			return fmt.Errorf("store: queue sweep: %w", err)
		}
		if status != string(kassa.SettlementProcessing) || payout.Valid {
			return kassa.Errorf(kassa.KindConflict, "settlement_not_processing", "Receipt %s is not waiting for a sweep.", job.ReceiptID)
		}
		now := db.clock()
		p, err := scanPayout(tx.QueryRowContext(ctx, "SELECT "+payoutColumns+` FROM payouts
			WHERE environment = $1 AND network = $2 AND kind = $3 AND status = $4 AND from_address = $5
			AND token_id = $6 AND to_address = $7 ORDER BY created_at LIMIT 1`+db.forUpdate(),
			string(job.Environment), job.Network, outbox.PayoutSweep, string(outbox.PayoutQueued), job.DepositAddress,
			job.TokenID, job.To))
		switch {
		case errors.Is(err, sql.ErrNoRows):
			p = &outbox.Payout{ID: kassa.NewUUID(), Kind: outbox.PayoutSweep, Environment: job.Environment,
				Network: job.Network, MerchantID: job.MerchantID, From: job.DepositAddress, FromIndex: int64(job.DepositIndex),
				TokenID: job.TokenID, Amount: new(big.Int).Set(job.AmountUnits), To: job.To, Status: outbox.PayoutQueued, CreatedAt: now}
			if err := insertPayout(ctx, tx, p); err != nil {
				return err
			}
		case err != nil:
			return fmt.Errorf("store: queue sweep: %w", err)
		default:
			p.Amount.Add(p.Amount, job.AmountUnits)
			if _, err := tx.ExecContext(ctx, "UPDATE payouts SET amount_units = $1, updated_at = $2 WHERE id = $3",
				p.Amount.String(), micros(now), p.ID); err != nil {
				return fmt.Errorf("store: queue sweep: %w", err)
			}
		}
		if _, err := tx.ExecContext(ctx, "UPDATE receipts SET payout_id = $1 WHERE id = $2", p.ID, job.ReceiptID); err != nil {
			return fmt.Errorf("store: queue sweep: %w", err)
		}
		out = p
		return nil
	})
	return out, err
}

func insertPayout(ctx context.Context, tx queryer, p *outbox.Payout) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO payouts (id, kind, environment, network, merchant_id, from_address,
		from_index, token_id, amount_units, to_address, order_id, refund_id, status, created_at, updated_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $14)`,
		p.ID, p.Kind, string(p.Environment), p.Network, p.MerchantID, p.From, p.FromIndex, p.TokenID,
		p.Amount.String(), p.To, emptyNil(p.OrderID), emptyNil(p.RefundID), string(p.Status), micros(p.CreatedAt))
	if err != nil {
		return fmt.Errorf("store: insert payout: %w", err)
	}
	return nil
}

// OpenPayouts lists network's queued, funding and sending payouts, oldest first.
func (db *DB) OpenPayouts(ctx context.Context, env kassa.Environment, network string) ([]*outbox.Payout, error) {
	rows, err := db.r.QueryContext(ctx, "SELECT "+payoutColumns+` FROM payouts
		WHERE environment = $1 AND network = $2 AND status IN ($3, $4, $5) ORDER BY created_at, id`,
		string(env), network, string(outbox.PayoutQueued), string(outbox.PayoutFunding), string(outbox.PayoutSending))
	if err != nil {
		return nil, fmt.Errorf("store: open payouts: %w", err)
	}
	defer rows.Close()
	var out []*outbox.Payout
	for rows.Next() {
		p, err := scanPayout(rows)
		if err != nil {
			return nil, fmt.Errorf("store: open payouts: %w", err)
		}
		out = append(out, p)
	}
	return out, rows.Err()
}

// WaitPayout records why a queued payout is waiting. A payout no longer open
// (withdrawn for the merchant's own wallet meanwhile) keeps its reason.
func (db *DB) WaitPayout(ctx context.Context, id, reason string) error {
	return db.tx(ctx, func(tx txq) error {
		if _, err := tx.ExecContext(ctx, "UPDATE payouts SET reason = $1 WHERE id = $2 AND reason <> $1 AND status IN ($3, $4)",
			reason, id, string(outbox.PayoutQueued), string(outbox.PayoutFunding)); err != nil {
			return fmt.Errorf("store: wait payout: %w", err)
		}
		// A refund waiting on its payout says why (the wallet is short), with
		// its refund.updated when the reason is new.
		var refundID sql.Null[string]
		var status string
		if err := tx.QueryRowContext(ctx, "SELECT refund_id, status FROM payouts WHERE id = $1", id).Scan(&refundID, &status); err != nil {
			if errors.Is(err, sql.ErrNoRows) {
				return nil
			}
			return fmt.Errorf("store: wait payout: %w", err)
		}
		if !refundID.Valid || (status != string(outbox.PayoutQueued) && status != string(outbox.PayoutFunding)) {
			return nil
		}
		r, err := db.refund(ctx, tx, 0, refundID.V, db.forUpdate())
		if err != nil || r.Status != kassa.RefundPending || r.FailureReason == reason {
			return err
		}
		r.FailureReason = reason
		return db.saveRefund(ctx, tx, r, db.clock())
	})
}

// QueueRefunds queues a refund from the gas wallet for each order of env owed
// one whose invoice was paid on network: in the token it was paid with, worth the
// refund's USD at the rate the payor paid (rounded down, at most what was paid),
// to the refund destination. The order records the refund's network and token.
func (db *DB) QueueRefunds(ctx context.Context, env kassa.Environment, network, gasAddress string, tokens []kassa.Token) (int, error) {
	rows, err := db.r.QueryContext(ctx, `SELECT o.id, o.merchant_id FROM orders o WHERE o.environment = $1 AND o.refund_due
		AND EXISTS (SELECT 1 FROM receipts r WHERE r.invoice_id = o.invoice_id AND r.network = $2 AND r.status IN ($3, $4))
		ORDER BY o.updated_at LIMIT 100`, string(env), network, string(kassa.PaymentConfirmed), string(kassa.PaymentUnderpaid))
	if err != nil {
		return 0, fmt.Errorf("store: refunds due: %w", err)
	}
	type ref struct {
		id       string
		merchant int64
	}
	var due []ref
	for rows.Next() {
		var r ref
		if err := rows.Scan(&r.id, &r.merchant); err != nil {
			rows.Close()
			return 0, fmt.Errorf("store: refunds due: %w", err)
		}
		due = append(due, r)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, fmt.Errorf("store: refunds due: %w", err)
	}
	queued, err := db.queueRefundPayouts(ctx, env, network, gasAddress)
	if err != nil {
		return queued, err
	}
	for _, r := range due {
		ok, err := db.queueRefund(ctx, r.merchant, r.id, network, gasAddress, tokens)
		if err != nil {
			return queued, err
		}
		if ok {
			queued++
		}
	}
	return queued, nil
}

// queueRefund queues one order's refund payout; false when the order no longer
// owes one or has nowhere to send it.
func (db *DB) queueRefund(ctx context.Context, merchantID int64, orderID, network, gasAddress string, tokens []kassa.Token) (bool, error) {
	queued := false
	err := db.tx(ctx, func(tx txq) error {
		o, err := db.order(ctx, tx, merchantID, orderID, db.forUpdate())
		if err != nil {
			return err
		}
		var exists int
		if err := tx.QueryRowContext(ctx, "SELECT COUNT(*) FROM payouts WHERE order_id = $1", o.ID).Scan(&exists); err != nil {
			return fmt.Errorf("store: queue refund: %w", err)
		}
		if exists > 0 || o.Refund.Status != commerce.RefundPending || o.Refund.Destination == "" {
			return nil
		}
		token, units, err := paidUnits(ctx, tx, o.InvoiceID, network, o.Refund.Amount)
		if err != nil || units.Sign() <= 0 {
			return err
		}
		now := db.clock()
		p := &outbox.Payout{ID: kassa.NewUUID(), Kind: outbox.PayoutRefund, Environment: o.Environment, Network: network,
			MerchantID: o.MerchantID, From: gasAddress, FromIndex: outbox.GasWalletIndex, TokenID: token, Amount: units,
			To: o.Refund.Destination, OrderID: o.ID, Status: outbox.PayoutQueued, CreatedAt: now}
		if err := insertPayout(ctx, tx, p); err != nil {
			return err
		}
		o.Refund.Network, o.Refund.Units = network, units.String()
		for _, t := range tokens {
			if t.ID == token {
				o.Refund.TokenSymbol = t.Symbol
			}
		}
		o.UpdatedAt = now
		queued = true
		return saveOrder(ctx, tx, o, now)
	})
	return queued, err
}

// paidUnits prices usd in the token an invoice was paid with on network, at the
// rate of its counted receipts (units paid per USD paid), rounded down and never
// more than was paid.
func paidUnits(ctx context.Context, tx queryer, invoiceID, network string, usd kassa.Millis) (int64, *big.Int, error) {
	rows, err := tx.QueryContext(ctx, `SELECT token_id, amount_units, amount_usd FROM receipts
		WHERE invoice_id = $1 AND network = $2 AND status IN ($3, $4) ORDER BY seen_at, id`,
		invoiceID, network, string(kassa.PaymentConfirmed), string(kassa.PaymentUnderpaid))
	if err != nil {
		return 0, nil, fmt.Errorf("store: refund rate: %w", err)
	}
	defer rows.Close()
	var token int64 = -1
	units, paidUSD := new(big.Int), new(big.Int)
	for rows.Next() {
		var (
			id    int64
			text  string
			usdOf int64
		)
		if err := rows.Scan(&id, &text, &usdOf); err != nil {
			return 0, nil, fmt.Errorf("store: refund rate: %w", err)
		}
		if token == -1 {
			token = id
		}
		u, ok := new(big.Int).SetString(text, 10)
		if id != token || !ok {
			continue // an invoice is paid in its locked token; another token's stray transfer is not refunded here
		}
		units.Add(units, u)
		paidUSD.Add(paidUSD, big.NewInt(usdOf))
	}
	if err := rows.Err(); err != nil || paidUSD.Sign() <= 0 {
		return token, new(big.Int), err
	}
	out := new(big.Int).Mul(units, big.NewInt(int64(usd)))
	out.Quo(out, paidUSD)
	if out.Cmp(units) > 0 {
		out.Set(units)
	}
	return token, out, nil
}
