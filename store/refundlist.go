package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/outbox"
)

// RefundsOf returns the refunds of several of the merchant's invoices, oldest
// first, by invoice id (the reports' refund rows); unknown ids have none.
func (db *DB) RefundsOf(ctx context.Context, merchantID int64, invoiceIDs []string) (map[string][]*kassa.Refund, error) {
	out := map[string][]*kassa.Refund{}
	if len(invoiceIDs) == 0 {
		return out, nil
	}
	w := &where{}
	w.add("merchant_id = %s", merchantID)
	w.in("invoice_id", invoiceIDs)
	rows, err := db.r.QueryContext(ctx, "SELECT "+refundColumns+" FROM refunds"+w.String()+" ORDER BY created_at, id", w.args...)
	if err != nil {
		return nil, fmt.Errorf("store: refunds of invoices: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		r, err := scanRefund(rows)
		if err != nil {
			return nil, fmt.Errorf("store: refunds of invoices: %w", err)
		}
		out[r.InvoiceID] = append(out[r.InvoiceID], r)
	}
	return out, rows.Err()
}

// WaitingRefunds lists, oldest first, the refunds of env on network that the gas
// wallet is to pay and has not yet signed (`kassa wallet`): pending ones whose
// payout is queued or funding from the gas wallet, or not queued yet and with no
// deposit address holding their money; and, on the same rule, those awaiting
// the payor's address, which it pays once claimed. A refund paid from a deposit
// address or by the merchant from their own wallet, signed already, failed or
// canceled is not among them.
func (db *DB) WaitingRefunds(ctx context.Context, env kassa.Environment, network string) ([]*kassa.Refund, error) {
	rows, err := db.r.QueryContext(ctx, "SELECT "+refundColumns+` FROM refunds WHERE environment = $1 AND network = $2
		AND status IN ($3, $4) AND paid_by = '' ORDER BY created_at, id`,
		string(env), network, string(kassa.RefundPending), string(kassa.RefundAwaitingAddress))
	if err != nil {
		return nil, fmt.Errorf("store: waiting refunds: %w", err)
	}
	var all []*kassa.Refund
	for rows.Next() {
		r, err := scanRefund(rows)
		if err != nil {
			rows.Close()
			return nil, fmt.Errorf("store: waiting refunds: %w", err)
		}
		all = append(all, r)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: waiting refunds: %w", err)
	}
	var out []*kassa.Refund
	for _, r := range all {
		gas, err := db.gasWalletPays(ctx, r)
		if err != nil {
			return nil, err
		}
		if gas {
			out = append(out, r)
		}
	}
	return out, nil
}

// gasWalletPays reports whether the gas wallet is to pay refund r and has not
// signed its transfer: its newest payout (one withdrawn for the merchant's own
// wallet and queued again leaves an older, failed one) is queued or funding from
// the gas wallet, or it
// has none yet and no deposit address holds its money (refundSource).
func (db *DB) gasWalletPays(ctx context.Context, r *kassa.Refund) (bool, error) {
	var index int64
	var status string
	err := db.r.QueryRowContext(ctx, `SELECT from_index, status FROM payouts WHERE refund_id = $1
		ORDER BY created_at DESC, id DESC LIMIT 1`, r.ID).Scan(&index, &status)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		from, _, err := refundSource(ctx, db.r, r)
		return from == "", err
	case err != nil:
		return false, fmt.Errorf("store: waiting refunds: %w", err)
	}
	return index == outbox.GasWalletIndex && (status == string(outbox.PayoutQueued) || status == string(outbox.PayoutFunding)), nil
}
