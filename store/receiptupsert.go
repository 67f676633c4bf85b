package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/kassapay/kassa"
)

// upsertReceipt inserts a new receipt or updates the one already recorded for the
// same transfer, and writes its invoice_payment event. The same transfer is the
// receipt of the same (network, tx hash, log index) or, when there is none, an
// orphaned receipt of this invoice with the same network, transaction, token and
// amount: a reorganisation may re-include a transaction with its logs at other
// indexes, and it must not count twice.
func (db *DB) upsertReceipt(ctx context.Context, tx txq, inv *kassa.Invoice, all []*kassa.InvoicePayment,
	in kassa.PaymentInput, tolerance kassa.Millis, now time.Time) (*kassa.InvoicePayment, error) {
	prior := sameKey(all, in)
	if prior == nil {
		var elsewhere string
		err := tx.QueryRowContext(ctx, "SELECT invoice_id FROM receipts WHERE network = $1 AND tx_hash = $2 AND log_index = $3",
			in.Network, in.TxHash, in.LogIndex).Scan(&elsewhere)
		if err == nil {
			return nil, kassa.Errorf(kassa.KindConflict, "transfer_already_recorded",
				"This transfer is already recorded for another invoice.")
		}
		if !errors.Is(err, sql.ErrNoRows) {
			return nil, fmt.Errorf("store: find transfer: %w", err)
		}
		prior = reincluded(all, in)
	}
	others := kassa.Amounts{}
	for _, r := range all {
		if r != prior {
			others = addAmounts(others, r)
		}
	}
	locked := int64(0)
	if inv.LockedTokenID != nil {
		locked = *inv.LockedTokenID
	}
	arrival := kassa.Arrival{Confirmed: in.Confirmed, TokenID: in.TokenID, SeenAt: now, Amount: in.AmountUSD,
		Unpriced: in.Unpriced, Wanted: max(inv.Amount-others.Confirmed, 0)}
	if prior == nil {
		r := &kassa.InvoicePayment{ID: kassa.NewTimeUUID(now), InvoiceID: inv.ID, MerchantID: inv.MerchantID,
			Environment: inv.Environment, Network: in.Network, TxHash: in.TxHash, LogIndex: in.LogIndex,
			TokenID: in.TokenID, FromAddress: in.FromAddress, AmountUnits: in.AmountUnits, AmountUSD: in.AmountUSD,
			Confirmations: in.Confirmations, SeenAt: now, Settlement: kassa.SettlementPending,
			BlockNumber: in.BlockNumber, BlockHash: in.BlockHash}
		r.Status = kassa.ClassifyPayment(inv.ArrivalStatus(now), locked, arrival, tolerance)
		r.AttentionReason = kassa.SetAsideReason(inv.ArrivalStatus(now), locked, arrival)
		if r.Status != kassa.PaymentPending {
			r.ConfirmedAt = confirmedAt(r.Status, now)
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO receipts (`+receiptColumns+`)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19)`,
			r.ID, r.InvoiceID, r.MerchantID, string(r.Environment), r.Network, r.TxHash, r.LogIndex, r.TokenID,
			r.FromAddress, r.AmountUnits.String(), int64(r.AmountUSD), string(r.Status), r.Confirmations,
			micros(r.SeenAt), nullMicros(r.ConfirmedAt), string(r.Settlement),
			int64(r.BlockNumber), r.BlockHash, string(r.AttentionReason)); err != nil {
			return nil, fmt.Errorf("store: insert receipt: %w", err)
		}
		tx.note(note{kind: notePayment, env: r.Environment, network: r.Network, tokenID: r.TokenID})
		return r, writeEvents(ctx, tx, inv.MerchantID, inv.Environment, r, now, kassa.EventPaymentCreated)
	}
	// The same transfer again: a stale report (kassa.InvoicePayment.StaleReport)
	// is ignored; otherwise its block and confirmations are as now reported
	// (an orphaned one is back in a canonical block), and only its confirmation
	// moves its status on. A receipt kept for a person (manual_retry) and a
	// confirmed one keep their status.
	r := prior
	if r.StaleReport(in) {
		return r, nil // older than what is recorded: nothing changes, nothing is emitted
	}
	changed := in.Confirmations != r.Confirmations || in.LogIndex != r.LogIndex
	r.Confirmations, r.LogIndex = in.Confirmations, in.LogIndex
	if in.BlockNumber > 0 && (in.BlockNumber != r.BlockNumber || in.BlockHash != r.BlockHash) {
		r.BlockNumber, r.BlockHash, changed = in.BlockNumber, in.BlockHash, true
	}
	if r.Status == kassa.PaymentPending && in.Confirmed {
		// Judged as when it was first seen: its token was accepted then, and its
		// amount is the one recorded.
		arrival.SeenAt, arrival.Amount, arrival.TokenID = r.SeenAt, r.AmountUSD, r.TokenID
		r.Status = kassa.ClassifyPayment(kassa.StatusUnpaid, 0, arrival, tolerance)
		r.ConfirmedAt = confirmedAt(r.Status, now)
		changed = true
	}
	if !changed {
		return r, nil
	}
	if _, err := tx.ExecContext(ctx, `UPDATE receipts SET status = $1, confirmations = $2, confirmed_at = $3,
		log_index = $4, block_number = $5, block_hash = $6 WHERE id = $7`,
		string(r.Status), r.Confirmations, nullMicros(r.ConfirmedAt), r.LogIndex, int64(r.BlockNumber), r.BlockHash,
		r.ID); err != nil {
		return nil, fmt.Errorf("store: update receipt: %w", err)
	}
	return r, writeEvents(ctx, tx, inv.MerchantID, inv.Environment, r, now, kassa.EventPaymentUpdated)
}

// sameKey returns the invoice's receipt of the transfer keyed as in is, or nil.
func sameKey(all []*kassa.InvoicePayment, in kassa.PaymentInput) *kassa.InvoicePayment {
	for _, r := range all {
		if r.Network == in.Network && r.TxHash == in.TxHash && r.LogIndex == in.LogIndex {
			return r
		}
	}
	return nil
}

// reincluded returns the invoice's orphaned receipt that in, reported from a
// canonical block under another log index, is the same transfer as: same network,
// transaction, token and amount. Of several such, the lowest log index is taken,
// so each report claims one of them.
func reincluded(all []*kassa.InvoicePayment, in kassa.PaymentInput) *kassa.InvoicePayment {
	if in.BlockHash == "" {
		return nil
	}
	var found *kassa.InvoicePayment
	for _, r := range all {
		if r.Orphaned() && r.Network == in.Network && r.TxHash == in.TxHash && r.TokenID == in.TokenID &&
			r.AmountUnits.Cmp(in.AmountUnits) == 0 && (found == nil || r.LogIndex < found.LogIndex) {
			found = r
		}
	}
	return found
}

func addAmounts(a kassa.Amounts, r *kassa.InvoicePayment) kassa.Amounts {
	got := kassa.PaymentAmounts([]*kassa.InvoicePayment{r})
	return kassa.Amounts{Confirmed: a.Confirmed + got.Confirmed, Pending: a.Pending + got.Pending}
}

func confirmedAt(s kassa.InvoicePaymentStatus, now time.Time) *time.Time {
	if s == kassa.PaymentConfirmed || s == kassa.PaymentUnderpaid {
		return &now
	}
	return nil
}
