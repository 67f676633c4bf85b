package store

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"math/big"
	"strings"
	"time"

	"github.com/kassapay/kassa"
)

var _ kassa.PaymentService = (*DB)(nil)

const receiptColumns = `id, invoice_id, merchant_id, environment, network, tx_hash, log_index, token_id,
	from_address, amount_units, amount_usd, status, confirmations, seen_at, confirmed_at, settlement_status,
	block_number, block_hash, attention_reason`

// receiptSelect is what reads of a receipt select: its columns, the settlement
// transaction, which is written only when the receipt settles, and its
// resolution, written when a person resolves it.
const receiptSelect = receiptColumns + ", settlement_tx_hash, resolution, resolved_at, resolution_note"

func scanReceipt(s scanner) (*kassa.Payment, error) {
	var (
		r                          kassa.Payment
		env, status, settle, units string
		attention, resolution      string
		usd, seen, block           int64
		confirmed, resolved        sql.Null[int64]
		settleTx                   sql.Null[string]
	)
	if err := s.Scan(&r.ID, &r.InvoiceID, &r.MerchantID, &env, &r.Network, &r.TxHash, &r.LogIndex, &r.TokenID,
		&r.FromAddress, &units, &usd, &status, &r.Confirmations, &seen, &confirmed, &settle,
		&block, &r.BlockHash, &attention, &settleTx, &resolution, &resolved, &r.ResolutionNote); err != nil {
		return nil, err
	}
	amount, ok := new(big.Int).SetString(units, 10)
	if !ok {
		return nil, fmt.Errorf("store: receipt %s: bad amount %q", r.ID, units)
	}
	r.Environment, r.Status, r.Settlement = kassa.Environment(env), kassa.PaymentStatus(status), kassa.SettlementStatus(settle)
	r.AmountUnits, r.AmountUSD, r.SeenAt, r.ConfirmedAt = amount, kassa.Millis(usd), fromMicros(seen), timeOrNil(confirmed)
	r.SettlementTxHash, r.BlockNumber = stringOrNil(settleTx), uint64(block)
	r.AttentionReason, r.Resolution, r.ResolvedAt = kassa.AttentionReason(attention), kassa.Resolution(resolution), timeOrNil(resolved)
	return &r, nil
}

// receipts loads an invoice's receipts, newest first; limit <= 0 loads them all.
func receipts(ctx context.Context, q queryer, invoiceID string, limit int) ([]*kassa.Payment, error) {
	query := "SELECT " + receiptSelect + " FROM receipts WHERE invoice_id = $1 ORDER BY seen_at DESC, id DESC"
	args := []any{invoiceID}
	if limit > 0 {
		query += " LIMIT $2"
		args = append(args, limit)
	}
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("store: receipts: %w", err)
	}
	defer rows.Close()
	var out []*kassa.Payment
	for rows.Next() {
		r, err := scanReceipt(rows)
		if err != nil {
			return nil, fmt.Errorf("store: receipts: %w", err)
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// InvoicePayments lists one of the merchant's invoices' receipts, newest first.
func (db *DB) InvoicePayments(ctx context.Context, merchantID int64, invoiceID string, limit int) ([]*kassa.Payment, error) {
	if _, err := db.invoice(ctx, db.r, merchantID, invoiceID, ""); err != nil {
		return nil, err
	}
	return receipts(ctx, db.r, invoiceID, limit)
}

// InvoiceWithPayments reads one of the merchant's invoices, with its effective
// status, and its receipts, newest first, at most limit (<= 0: all). The receipts
// are read first: a receipt and its invoice's change are written in one
// transaction, so the invoice read after them is never older than they are and a
// confirmed receipt is always counted in it (read the other way round, a payor
// polling as the watcher confirmed a transfer saw it confirmed beside an unpaid
// invoice).
func (db *DB) InvoiceWithPayments(ctx context.Context, merchantID int64, invoiceID string, limit int) (*kassa.Invoice, []*kassa.Payment, error) {
	if !kassa.ValidUUID(invoiceID) {
		return nil, nil, kassa.NotFound("invoice")
	}
	// One snapshot for both reads: a payment committed between them would show
	// a paid invoice without its payment (seen on a loaded machine).
	opts := &sql.TxOptions{ReadOnly: true}
	if db.engine == EnginePostgres {
		opts.Isolation = sql.LevelRepeatableRead
	}
	tx, err := db.r.BeginTx(ctx, opts)
	if err != nil {
		return nil, nil, fmt.Errorf("store: begin read: %w", err)
	}
	defer func() { _ = tx.Rollback() }()
	rs, err := receipts(ctx, tx, invoiceID, limit)
	if err != nil {
		return nil, nil, err
	}
	inv, err := db.effectiveInvoice(ctx, tx, merchantID, invoiceID)
	if err != nil {
		return nil, nil, err
	}
	return inv, rs, nil
}

// PaymentsOf returns the receipts of the merchant's invoices ids, oldest first.
func (db *DB) PaymentsOf(ctx context.Context, merchantID int64, ids []string) (map[string][]*kassa.Payment, error) {
	out := map[string][]*kassa.Payment{}
	if len(ids) == 0 {
		return out, nil
	}
	w := &where{}
	w.add("merchant_id = %s", merchantID)
	w.in("invoice_id", ids)
	rows, err := db.r.QueryContext(ctx, "SELECT "+receiptSelect+" FROM receipts"+w.String()+" ORDER BY seen_at, id", w.args...)
	if err != nil {
		return nil, fmt.Errorf("store: receipts of invoices: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		r, err := scanReceipt(rows)
		if err != nil {
			return nil, fmt.Errorf("store: receipts of invoices: %w", err)
		}
		out[r.InvoiceID] = append(out[r.InvoiceID], r)
	}
	return out, rows.Err()
}

// IngestPayment records a transfer and recomputes its invoice in one transaction,
// with the invoice row locked (FOR UPDATE on PostgreSQL, the single writer on
// SQLite), so two receipts for one invoice never lose an update. The receipt's
// status comes from kassa.ClassifyReceipt, the invoice's from Invoice.Recompute.
// The transfer's block is recorded with it; a transfer whose block left the chain,
// reported again from a canonical block (under its key, or re-included at another
// log index), gets its block back rather than a second receipt (upsertReceipt).
func (db *DB) IngestPayment(ctx context.Context, in kassa.PaymentInput) (*kassa.Payment, *kassa.Invoice, error) {
	if err := checkPaymentInput(in); err != nil {
		return nil, nil, err
	}
	in.TxHash = strings.ToLower(in.TxHash) // one transfer, whatever the case it is reported in
	in.BlockHash = strings.ToLower(in.BlockHash)
	var (
		rec *kassa.Payment
		inv *kassa.Invoice
	)
	err := db.tx(ctx, func(tx txq) error {
		var err error
		if inv, err = db.invoice(ctx, tx, in.MerchantID, in.InvoiceID, db.forUpdate()); err != nil {
			return err
		}
		m, err := db.merchant(ctx, tx, in.MerchantID, "")
		if err != nil {
			return err
		}
		all, err := receipts(ctx, tx, inv.ID, 0)
		if err != nil {
			return err
		}
		now := db.clock()
		rec, err = db.upsertReceipt(ctx, tx, inv, all, in, m.UnderpaymentToleranceMillis, now)
		if err != nil {
			return err
		}
		if inv.LockedTokenID == nil && rec.Status != kassa.PaymentManualRetry {
			// The first money counted locks its token: the rest must come in it.
			if _, err := tx.ExecContext(ctx, "UPDATE invoices SET locked_token_id = $1 WHERE id = $2 AND merchant_id = $3",
				rec.TokenID, inv.ID, inv.MerchantID); err != nil {
				return fmt.Errorf("store: lock token: %w", err)
			}
			token := rec.TokenID
			inv.LockedTokenID = &token
		}
		if all, err = receipts(ctx, tx, inv.ID, 0); err != nil {
			return err
		}
		return db.saveRecomputed(ctx, tx, inv, all, rec, m.UnderpaymentToleranceMillis, now)
	})
	if err != nil {
		return nil, nil, err
	}
	return rec, inv, nil
}

func checkPaymentInput(in kassa.PaymentInput) error {
	switch {
	case in.AmountUnits == nil || in.AmountUnits.Sign() <= 0:
		return kassa.Invalidf("amount", "invalid_amount", "A payment must move a positive amount.")
	case in.AmountUSD < 0:
		return kassa.Invalidf("amount_usd", "invalid_amount", "A payment's USD value cannot be negative.")
	case !storable(in.Network) || !storable(in.TxHash) || !storable(in.FromAddress) || in.TxHash == "" || in.Network == "":
		return kassa.Invalidf("tx_hash", "invalid_transfer", "A payment needs a network and a transaction hash.")
	case in.BlockNumber > math.MaxInt64 || (in.BlockNumber == 0) != (in.BlockHash == "") || !storable(in.BlockHash):
		return kassa.Invalidf("block", "invalid_transfer", "A payment in a block needs the block's number and hash.")
	}
	return nil
}

// saveRecomputed recomputes the invoice from its receipts, stores the change and
// writes invoice.updated (and invoice.paid, invoice.expired or
// invoice.paid_after_expiration) when something changed.
func (db *DB) saveRecomputed(ctx context.Context, tx txq, inv *kassa.Invoice, all []*kassa.Payment,
	rec *kassa.Payment, tolerance kassa.Millis, now time.Time) error {
	before := *inv
	inv.Recompute(all, tolerance, now)
	var types []string
	if rec.Status == kassa.PaymentManualRetry && rec.SeenAt.Equal(now) && before.ArrivalStatus(now) == kassa.StatusExpired {
		types = append(types, kassa.EventInvoicePaidAfterExpired) // new money on an expired invoice
	}
	if inv.Status != before.Status || inv.AmountPaid != before.AmountPaid || inv.AmountPending != before.AmountPending ||
		!sameTime(inv.LastPaymentAt, before.LastPaymentAt) {
		if _, err := tx.ExecContext(ctx, `UPDATE invoices SET status = $1, amount_paid = $2, amount_pending = $3,
			paid_at = $4, last_payment_at = $5, payer_wallet_address = $6, payer_wallet_network = $7
			WHERE id = $8 AND merchant_id = $9`,
			string(inv.Status), int64(inv.AmountPaid), int64(inv.AmountPending), nullMicros(inv.PaidAt),
			nullMicros(inv.LastPaymentAt), nullString(inv.PayerWalletAddress), nullString(inv.PayerWalletNetwork),
			inv.ID, inv.MerchantID); err != nil {
			return fmt.Errorf("store: update invoice: %w", err)
		}
		types = append(types, kassa.EventInvoiceUpdated)
		if inv.Status != before.Status {
			tx.note(note{kind: noteMoved, from: before.Status, to: inv.Status})
		}
		switch {
		case inv.Status == kassa.StatusPaid && before.Status != kassa.StatusPaid:
			types = append(types, kassa.EventInvoicePaid)
		case inv.Status == kassa.StatusExpired && before.Status != kassa.StatusExpired:
			types = append(types, kassa.EventInvoiceExpired)
		}
	}
	inv.Status = inv.EffectiveStatus(now)
	if err := writeEvents(ctx, tx, inv.MerchantID, inv.Environment, inv, now, types...); err != nil {
		return err
	}
	return db.followInvoice(ctx, tx, inv, rec.TxHash, now)
}

func sameTime(a, b *time.Time) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Equal(*b)
}
