package store

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/kassapay/kassa"
)

// detachReceipts detaches the receipts of network recorded in canonical blocks
// above height above: their block hash is cleared (the block left the chain; the
// number is kept) and their confirmations are 0. A pending one stays pending and
// keeps counting as pending money until its transaction is seen in a canonical
// block again; a confirmed or underpaid one becomes manual_retry (confirmed_at
// kept: money not on the canonical chain never counts as paid) and its invoice is
// recomputed; manual_retry stays. Every changed receipt gets invoice_payment.updated.
// Invoices are locked one at a time in id order, each before its receipts are
// read; the candidates are looked for again until none is left, so a receipt
// ingested meanwhile in a forgotten block is detached too.
func (db *DB) detachReceipts(ctx context.Context, tx txq, network string, above uint64) ([]*kassa.InvoicePayment, error) {
	var changed []*kassa.InvoicePayment
	for {
		invs, err := invoiceRefs(ctx, tx, `SELECT DISTINCT merchant_id, invoice_id FROM receipts
			WHERE network = $1 AND block_number > $2 AND block_hash <> '' ORDER BY invoice_id`, network, int64(above))
		if err != nil || len(invs) == 0 {
			return changed, err
		}
		for _, ref := range invs {
			rs, err := db.reworkReceipts(ctx, tx, ref, func(r *kassa.InvoicePayment) bool {
				if r.Network != network || r.BlockNumber <= above || r.BlockHash == "" {
					return false
				}
				r.BlockHash, r.Confirmations = "", 0
				if r.Status == kassa.PaymentConfirmed || r.Status == kassa.PaymentUnderpaid {
					r.Status, r.AttentionReason = kassa.PaymentManualRetry, kassa.AttentionReorged
				}
				return true
			})
			if err != nil {
				return nil, err
			}
			changed = append(changed, rs...)
		}
	}
}

// PendingChainPayments lists network's pending receipts that were seen in a block,
// including those whose block left the chain, and its unresolved receipts set
// aside for a person (manual_retry) that are in a canonical block with fewer than
// confirmations: their count goes on, so a person can accept or dismiss them once
// they have it. By block then id.
func (db *DB) PendingChainPayments(ctx context.Context, network string, confirmations int) ([]*kassa.InvoicePayment, error) {
	if !storable(network) {
		return nil, nil
	}
	// Two reads, each on its own partial index (receipts_chain_pending,
	// receipts_set_aside): set-aside receipts are few, pending ones many.
	out, err := db.chainReceipts(ctx, `WHERE network = $1 AND status = 'pending' AND block_number > 0`, network)
	if err != nil {
		return nil, err
	}
	aside, err := db.chainReceipts(ctx, `WHERE status = 'manual_retry' AND network = $1 AND resolution = ''
		AND block_hash <> '' AND confirmations < $2`, network, confirmations)
	if err != nil {
		return nil, err
	}
	out = append(out, aside...)
	slices.SortFunc(out, func(a, b *kassa.InvoicePayment) int {
		if c := cmp.Compare(a.BlockNumber, b.BlockNumber); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	return out, nil
}

// chainReceipts reads the receipts a WHERE clause selects.
func (db *DB) chainReceipts(ctx context.Context, where string, args ...any) ([]*kassa.InvoicePayment, error) {
	rows, err := db.r.QueryContext(ctx, "SELECT "+receiptSelect+" FROM receipts "+where, args...)
	if err != nil {
		return nil, fmt.Errorf("store: pending chain payments: %w", err)
	}
	defer rows.Close()
	var out []*kassa.InvoicePayment
	for rows.Next() {
		r, err := scanReceipt(rows)
		if err != nil {
			return nil, fmt.Errorf("store: pending chain payments: %w", err)
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// AbandonLostPayments sets to manual_retry (reorged) network's pending receipts
// whose block left the chain (not seen in a canonical block since) and either
// whose invoice's watch has ended at now (now >= expires_at + kassa.WatchAfterExpiry)
// or whose invoice is paid and whose transaction had confirmations more blocks to
// come back (the network's cursor at least block + confirmations) and did not: on
// a paid invoice nothing waits on it, and it would otherwise show as pending money
// for a day. Each gets invoice_payment.updated and its invoice is recomputed with
// events, in one transaction; it returns them. When there are none it only reads.
func (db *DB) AbandonLostPayments(ctx context.Context, network string, now time.Time, confirmations int) ([]*kassa.InvoicePayment, error) {
	if !storable(network) {
		return nil, nil
	}
	const lost = `SELECT DISTINCT r.merchant_id, r.invoice_id FROM receipts r JOIN invoices i ON i.id = r.invoice_id
		WHERE r.network = $1 AND r.status = 'pending' AND r.block_number > 0 AND r.block_hash = ''
		AND (i.expires_at <= $2 OR (i.status = 'paid' AND r.block_number <= $3))
		ORDER BY r.invoice_id`
	ended := micros(now.Add(-kassa.WatchAfterExpiry))
	below := int64(-1) // lost blocks at or below it had their chance to come back
	cur, err := db.ChainCursor(ctx, network)
	if err != nil {
		return nil, err
	}
	if cur != nil && cur.Block.Number >= uint64(max(confirmations, 0)) {
		below = int64(cur.Block.Number) - int64(max(confirmations, 0))
	}
	invs, err := invoiceRefs(ctx, db.r, lost, network, ended, below)
	if err != nil || len(invs) == 0 {
		return nil, err
	}
	var changed []*kassa.InvoicePayment
	err = db.tx(ctx, func(tx txq) error {
		changed = nil
		for _, ref := range invs {
			var watchEnded, paid bool
			if err := tx.QueryRowContext(ctx, "SELECT expires_at <= $1, status = 'paid' FROM invoices WHERE id = $2",
				ended, ref.id).Scan(&watchEnded, &paid); err != nil {
				return fmt.Errorf("store: abandon lost payments: %w", err)
			}
			rs, err := db.reworkReceipts(ctx, tx, ref, func(r *kassa.InvoicePayment) bool {
				if r.Network != network || r.Status != kassa.PaymentPending || !r.Orphaned() {
					return false
				}
				if !watchEnded && !(paid && int64(r.BlockNumber) <= below) {
					return false
				}
				r.Status, r.AttentionReason = kassa.PaymentManualRetry, kassa.AttentionReorged
				return true
			})
			if err != nil {
				return err
			}
			changed = append(changed, rs...)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return changed, nil
}

// invoiceRef names an invoice of a merchant.
type invoiceRef struct {
	merchantID int64
	id         string
}

// invoiceRefs runs a query of (merchant_id, invoice_id) rows.
func invoiceRefs(ctx context.Context, q queryer, query string, args ...any) ([]invoiceRef, error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("store: find invoices: %w", err)
	}
	defer rows.Close()
	var out []invoiceRef
	for rows.Next() {
		var ref invoiceRef
		if err := rows.Scan(&ref.merchantID, &ref.id); err != nil {
			return nil, fmt.Errorf("store: find invoices: %w", err)
		}
		out = append(out, ref)
	}
	return out, rows.Err()
}

// reworkReceipts locks the invoice ref, hands each of its receipts to change, which
// reports whether it changed the receipt's status, confirmations or block hash;
// stores each changed receipt with invoice_payment.updated; and when a status
// changed, stores the invoice recomputed with its events (saveRecomputed). It
// returns the changed receipts.
func (db *DB) reworkReceipts(ctx context.Context, tx txq, ref invoiceRef, change func(*kassa.InvoicePayment) bool) ([]*kassa.InvoicePayment, error) {
	inv, err := db.invoice(ctx, tx, ref.merchantID, ref.id, db.forUpdate())
	if err != nil {
		return nil, err
	}
	all, err := receipts(ctx, tx, inv.ID, 0)
	if err != nil {
		return nil, err
	}
	now := db.clock()
	var changed []*kassa.InvoicePayment
	recount := false
	for _, r := range all {
		before := r.Status
		if !change(r) {
			continue
		}
		if _, err := tx.ExecContext(ctx, `UPDATE receipts SET status = $1, confirmations = $2, block_hash = $3,
			attention_reason = $4 WHERE id = $5`,
			string(r.Status), r.Confirmations, r.BlockHash, string(r.AttentionReason), r.ID); err != nil {
			return nil, fmt.Errorf("store: update receipt: %w", err)
		}
		if err := writeEvents(ctx, tx, inv.MerchantID, inv.Environment, r, now, kassa.EventPaymentUpdated); err != nil {
			return nil, err
		}
		changed = append(changed, r)
		recount = recount || r.Status != before
	}
	if !recount {
		return changed, nil
	}
	m, err := db.merchant(ctx, tx, inv.MerchantID, "")
	if err != nil {
		return nil, err
	}
	return changed, db.saveRecomputed(ctx, tx, inv, all, changed[len(changed)-1], m.UnderpaymentToleranceMillis, now)
}
