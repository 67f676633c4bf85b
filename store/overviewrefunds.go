package store

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/commerce"
)

// dayRefunds adds to days (keyed by unix day) the refunds of the merchant's
// commerce orders made at or after since, on the UTC day each was made: only
// refunds of paid invoices, as only those count in the paid volume (an invoice
// that expired part paid gives its money back, but it was never volume).
//
// A refund lives in the order's data, so the orders that can hold one
// (cancelled, failed or refunded, changed since since: a refund is made by a
// change, which sets updated_at) are read and decoded here rather than summed by
// engine-specific JSON functions.
func (db *DB) dayRefunds(ctx context.Context, merchantID int64, env kassa.Environment, since time.Time, days map[int64]*kassa.DayTotal) error {
	rows, err := db.r.QueryContext(ctx, `SELECT o.data FROM orders o JOIN invoices i ON i.id = o.invoice_id
		WHERE o.merchant_id = $1 AND o.environment = $2 AND o.status IN ($3, $4, $5) AND o.updated_at >= $6 AND i.status = $7`,
		merchantID, string(env), string(commerce.OrderCancelled), string(commerce.OrderFailed), string(commerce.OrderRefunded),
		micros(since), string(kassa.StatusPaid))
	if err != nil {
		return fmt.Errorf("store: refunds by day: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var data string
		if err := rows.Scan(&data); err != nil {
			return fmt.Errorf("store: refunds by day: %w", err)
		}
		var o orderRecord
		if err := json.Unmarshal([]byte(data), &o); err != nil {
			return fmt.Errorf("store: refunds by day: %w", err)
		}
		r := o.Refund
		if r.Status == commerce.RefundNone || r.Status == "" || r.CreatedAt == nil || r.CreatedAt.Before(since) {
			continue
		}
		day := micros(*r.CreatedAt) / microsPerDay
		d := days[day]
		if d == nil {
			d = &kassa.DayTotal{Day: fromMicros(day * microsPerDay)}
			days[day] = d
		}
		d.Refunds++
		d.Refunded += r.Amount
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("store: refunds by day: %w", err)
	}
	return nil
}

// dayInvoiceRefunds adds to days the merchant's confirmed invoice refunds
// (POST /api/v1/invoices/{id}/refunds) confirmed at or after since, on the UTC
// day each was confirmed (when the invoice's amount_refunded grew): only those of
// paid invoices that drew on counted money (the invoice's pool, or a payment
// that counts), as only that money is in the paid volume; a refund of money set
// aside (a wrong token, money after expiry) gives back what was never volume.
func (db *DB) dayInvoiceRefunds(ctx context.Context, merchantID int64, env kassa.Environment, since time.Time, days map[int64]*kassa.DayTotal) error {
	rows, err := db.r.QueryContext(ctx, `SELECT f.confirmed_at, f.amount_usd FROM refunds f JOIN invoices i ON i.id = f.invoice_id
		WHERE f.merchant_id = $1 AND f.environment = $2 AND f.status = $3 AND f.confirmed_at >= $4 AND i.status = $5
		AND (f.payment_id = '' OR EXISTS (SELECT 1 FROM receipts r WHERE r.id = f.payment_id AND r.status IN ($6, $7)))`,
		merchantID, string(env), string(kassa.RefundConfirmed), micros(since), string(kassa.StatusPaid),
		string(kassa.PaymentConfirmed), string(kassa.PaymentUnderpaid))
	if err != nil {
		return fmt.Errorf("store: invoice refunds by day: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var at, usd int64
		if err := rows.Scan(&at, &usd); err != nil {
			return fmt.Errorf("store: invoice refunds by day: %w", err)
		}
		day := at / microsPerDay
		d := days[day]
		if d == nil {
			d = &kassa.DayTotal{Day: fromMicros(day * microsPerDay)}
			days[day] = d
		}
		d.Refunds++
		d.Refunded += kassa.Millis(usd)
	}
	return rows.Err()
}
