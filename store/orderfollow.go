package store

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/commerce"
)

// followInvoice applies an invoice change to the invoice's commerce order, if it
// has one, in the same transaction: commerce.Order.FollowInvoice decides.
func (db *DB) followInvoice(ctx context.Context, tx txq, inv *kassa.Invoice, txHash string, now time.Time) error {
	if inv.CommerceOrderID == nil {
		return nil
	}
	return db.followOrder(ctx, tx, inv.MerchantID, *inv.CommerceOrderID, func(o *commerce.Order) {
		o.FollowInvoice(inv, txHash, now)
	}, now)
}

// followSettlement applies a finished settlement of receipt r to its invoice's
// commerce order: the order is settled once every counted receipt is.
func (db *DB) followSettlement(ctx context.Context, tx txq, r *kassa.InvoicePayment, now time.Time) error {
	var orderID *string
	var status string
	if err := tx.QueryRowContext(ctx, "SELECT commerce_order_id, status FROM invoices WHERE id = $1",
		r.InvoiceID).Scan(&orderID, &status); err != nil {
		return fmt.Errorf("store: settlement order: %w", err)
	}
	if orderID == nil {
		return nil
	}
	var unsettled int
	if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM receipts WHERE invoice_id = $1 AND status IN ($2, $3)
		AND settlement_status <> $4`, r.InvoiceID, string(kassa.PaymentConfirmed), string(kassa.PaymentUnderpaid),
		string(kassa.SettlementSettled)).Scan(&unsettled); err != nil {
		return fmt.Errorf("store: settlement order: %w", err)
	}
	all := unsettled == 0 && status == string(kassa.StatusPaid)
	hash := ""
	if r.SettlementTxHash != nil {
		hash = *r.SettlementTxHash
	}
	return db.followOrder(ctx, tx, r.MerchantID, *orderID, func(o *commerce.Order) {
		o.FollowSettlement(r.Settlement, hash, r.Network, all, now)
	}, now)
}

// followOrder locks an order, applies fn and saves it with its event when fn
// changed it.
func (db *DB) followOrder(ctx context.Context, tx txq, merchantID int64, id string, fn func(*commerce.Order), now time.Time) error {
	o, err := db.order(ctx, tx, merchantID, id, db.forUpdate())
	if err != nil {
		return err
	}
	before, _ := json.Marshal((*orderRecord)(o))
	fn(o)
	if after, _ := json.Marshal((*orderRecord)(o)); string(after) == string(before) {
		return nil
	}
	return saveOrder(ctx, tx, o, now)
}
