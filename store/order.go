package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/commerce"
)

// Compile-time check that DB keeps commerce data.
var _ commerce.OrderStore = (*DB)(nil)

// SaveEstimate stores a checkout estimate.
func (db *DB) SaveEstimate(ctx context.Context, e *commerce.Estimate) error {
	data, err := json.Marshal(e)
	if err != nil {
		return fmt.Errorf("store: estimate: %w", err)
	}
	return db.write(ctx, func(q queryer) error {
		_, err := q.ExecContext(ctx, `INSERT INTO checkout_estimates (id, merchant_id, environment, data, created_at, expires_at)
			VALUES ($1, $2, $3, $4, $5, $6)`, e.ID, e.MerchantID, string(e.Environment), string(data),
			micros(e.CreatedAt), micros(e.ExpiresAt))
		if err != nil {
			return fmt.Errorf("store: save estimate: %w", err)
		}
		return nil
	})
}

// Estimate returns one of the merchant's estimates in env.
func (db *DB) Estimate(ctx context.Context, merchantID int64, env kassa.Environment, id string) (*commerce.Estimate, error) {
	var e commerce.Estimate
	if err := db.document(ctx, db.r, "checkout_estimates", merchantID, env, id, "estimate", &e); err != nil {
		return nil, err
	}
	return &e, nil
}

// SaveShippingAddress stores a standardised checkout address.
func (db *DB) SaveShippingAddress(ctx context.Context, a *commerce.ShippingAddress) error {
	data, err := json.Marshal(a)
	if err != nil {
		return fmt.Errorf("store: address: %w", err)
	}
	return db.write(ctx, func(q queryer) error {
		_, err := q.ExecContext(ctx, `INSERT INTO checkout_addresses (id, merchant_id, environment, estimate_id, data, created_at)
			VALUES ($1, $2, $3, $4, $5, $6)`, a.ID, a.MerchantID, string(a.Environment), a.EstimateID, string(data),
			micros(a.ValidatedAt))
		if err != nil {
			return fmt.Errorf("store: save address: %w", err)
		}
		return nil
	})
}

// ShippingAddress returns one of the merchant's checkout addresses in env.
func (db *DB) ShippingAddress(ctx context.Context, merchantID int64, env kassa.Environment, id string) (*commerce.ShippingAddress, error) {
	var a commerce.ShippingAddress
	if err := db.document(ctx, db.r, "checkout_addresses", merchantID, env, id, "address", &a); err != nil {
		return nil, err
	}
	return &a, nil
}

// document loads the JSON data column of one row of table owned by the merchant in
// env into v. Ids that are not UUIDs cannot exist: they are not found.
func (db *DB) document(ctx context.Context, q queryer, table string, merchantID int64, env kassa.Environment,
	id, resource string, v any) error {
	if !kassa.ValidUUID(id) {
		return kassa.NotFound(resource)
	}
	var data string
	err := q.QueryRowContext(ctx, "SELECT data FROM "+table+" WHERE id = $1 AND merchant_id = $2 AND environment = $3",
		id, merchantID, string(env)).Scan(&data)
	if errors.Is(err, sql.ErrNoRows) {
		return kassa.NotFound(resource)
	}
	if err != nil {
		return fmt.Errorf("store: load %s: %w", resource, err)
	}
	if err := json.Unmarshal([]byte(data), v); err != nil {
		return fmt.Errorf("store: decode %s: %w", resource, err)
	}
	return nil
}

// CreateOrder stores the order's invoice and then the order, with invoice.created
// and commerce.order.created, in one transaction: the invoice names the order and
// the order takes the invoice's id and creation time. Behind the idempotency layer
// the response is saved in the same transaction.
func (db *DB) CreateOrder(ctx context.Context, c commerce.OrderCreate, save *kassa.SavedResponse[commerce.CreatedOrder]) error {
	o, inv, token := c.Order, c.Invoice, c.SessionToken
	inv.CommerceOrderID = &o.ID // the two point at each other
	return idempotentTx(ctx, db, save, func(tx txq) (commerce.CreatedOrder, error) {
		if err := insertInvoice(ctx, tx, inv, token); err != nil {
			return commerce.CreatedOrder{}, err
		}
		o.InvoiceID, o.CreatedAt, o.UpdatedAt = inv.ID, inv.CreatedAt, inv.CreatedAt
		if len(o.Timeline) > 0 {
			o.Timeline[0].Timestamp = inv.CreatedAt // the order's first entry is its creation
		}
		data, err := json.Marshal((*orderRecord)(o))
		if err != nil {
			return commerce.CreatedOrder{}, fmt.Errorf("store: order: %w", err)
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO orders (id, merchant_id, environment, invoice_id, status,
			customer_id, wallet_address, data, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
			o.ID, o.MerchantID, string(o.Environment), o.InvoiceID, string(o.Status), emptyNil(o.Buyer.CustomerID),
			emptyNil(o.Buyer.WalletAddress), string(data), micros(o.CreatedAt), micros(o.UpdatedAt)); err != nil {
			return commerce.CreatedOrder{}, fmt.Errorf("store: create order: %w", err)
		}
		err = writeEvents(ctx, tx, o.MerchantID, o.Environment, o, inv.CreatedAt, kassa.EventOrderCreated)
		return commerce.CreatedOrder{Order: o, Invoice: inv, SessionToken: token}, err
	})
}

func emptyNil(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// Order returns one of the merchant's orders.
func (db *DB) Order(ctx context.Context, merchantID int64, id string) (*commerce.Order, error) {
	return db.order(ctx, db.r, merchantID, id, "")
}

func (db *DB) order(ctx context.Context, q queryer, merchantID int64, id, lock string) (*commerce.Order, error) {
	if !kassa.ValidUUID(id) {
		return nil, kassa.NotFound("order")
	}
	o, err := scanOrder(q.QueryRowContext(ctx, "SELECT data FROM orders WHERE id = $1 AND merchant_id = $2"+lock, id, merchantID))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, kassa.NotFound("order")
	}
	return o, err
}

func scanOrder(s scanner) (*commerce.Order, error) {
	var data string
	if err := s.Scan(&data); err != nil {
		return nil, err
	}
	var o commerce.Order
	if err := json.Unmarshal([]byte(data), (*orderRecord)(&o)); err != nil {
		return nil, fmt.Errorf("store: decode order: %w", err)
	}
	return &o, nil
}

// orderRecord is an order as the store keeps it: every field, encoded by
// encoding/json's defaults rather than as the API snapshot commerce.Order renders.
type orderRecord commerce.Order

// saveOrder writes a changed order and its commerce.order.updated event through tx.
func saveOrder(ctx context.Context, tx txq, o *commerce.Order, now time.Time) error {
	data, err := json.Marshal((*orderRecord)(o))
	if err != nil {
		return fmt.Errorf("store: order: %w", err)
	}
	// refund_due marks an order owed a refund that no payout pays yet: the chain
	// sender queues one (QueueRefunds).
	if _, err := tx.ExecContext(ctx, `UPDATE orders SET status = $1, wallet_address = COALESCE(wallet_address, $2),
		data = $3, updated_at = $4, lease_until = NULL,
		refund_due = ($7 AND NOT EXISTS (SELECT 1 FROM payouts p WHERE p.order_id = orders.id))
		WHERE id = $5 AND merchant_id = $6`,
		string(o.Status), emptyNil(o.WalletAddress), string(data), micros(o.UpdatedAt), o.ID, o.MerchantID,
		o.Refund.Status == commerce.RefundPending); err != nil {
		return fmt.Errorf("store: update order: %w", err)
	}
	return writeEvents(ctx, tx, o.MerchantID, o.Environment, o, now, kassa.EventOrderUpdated)
}

// ChangeOrder locks the order and its invoice, applies change and writes the result
// with its events in one transaction; an unchanged order writes nothing.
func (db *DB) ChangeOrder(ctx context.Context, merchantID int64, id string, change commerce.OrderChange) (*commerce.Order, error) {
	var o *commerce.Order
	err := db.tx(ctx, func(tx txq) error {
		// Lock the invoice before the order, as payments, expiry and invoice cancels
		// do (they change the invoice, then follow it to the order): one lock order,
		// so PostgreSQL never deadlocks between them. An order's invoice never changes.
		if !kassa.ValidUUID(id) {
			return kassa.NotFound("order")
		}
		var invoiceID string
		err := tx.QueryRowContext(ctx, "SELECT invoice_id FROM orders WHERE id = $1 AND merchant_id = $2",
			id, merchantID).Scan(&invoiceID)
		if errors.Is(err, sql.ErrNoRows) {
			return kassa.NotFound("order")
		}
		if err != nil {
			return fmt.Errorf("store: change order: %w", err)
		}
		inv, err := db.invoice(ctx, tx, merchantID, invoiceID, db.forUpdate())
		if err != nil {
			return err
		}
		if o, err = db.order(ctx, tx, merchantID, id, db.forUpdate()); err != nil {
			return err
		}
		now := db.clock()
		inv.Status = inv.EffectiveStatus(now)
		payments, err := countPayments(ctx, tx, inv.ID)
		if err != nil {
			return err
		}
		before, _ := json.Marshal((*orderRecord)(o))
		action, err := change(o, inv, payments, now)
		if err != nil {
			return err
		}
		if action == commerce.InvoiceCancel {
			if err := cancelInvoiceTx(ctx, tx, inv, now); err != nil {
				return err
			}
		}
		if after, _ := json.Marshal((*orderRecord)(o)); string(after) == string(before) {
			return nil
		}
		return saveOrder(ctx, tx, o, now)
	})
	if err != nil {
		return nil, err
	}
	return o, nil
}

// OrdersToPlace leases up to limit settled mainnet orders for placement
// (DB.claim); an order whose lease ran out (its worker died) is leased again.
func (db *DB) OrdersToPlace(ctx context.Context, limit int, lease time.Duration) ([]*commerce.Order, error) {
	var out []*commerce.Order
	err := db.tx(ctx, func(tx txq) error {
		out = nil
		now := db.clock()
		return db.claim(ctx, tx, claimSpec{table: "orders", key: "id",
			due:   "environment = $1 AND status = $2 AND (lease_until IS NULL OR lease_until < $3)",
			args:  []any{string(kassa.Mainnet), string(commerce.OrderPaymentSettled), micros(now)},
			order: "created_at", limit: limit,
			lease: []assign{{"lease_until", micros(now.Add(lease))}},
		}, func(ids []string) ([]string, error) {
			var err error
			out, err = db.loadOrders(ctx, tx, ids)
			return ids, err
		})
	})
	return out, err
}

// loadOrders reads the orders ids, oldest first.
func (db *DB) loadOrders(ctx context.Context, tx txq, ids []string) ([]*commerce.Order, error) {
	rows, err := tx.QueryContext(ctx, "SELECT data FROM orders WHERE "+db.keyIn("id", 1)+" ORDER BY created_at", db.keyList(ids))
	if err != nil {
		return nil, fmt.Errorf("store: orders to place: %w", err)
	}
	defer rows.Close()
	var out []*commerce.Order
	for rows.Next() {
		o, err := scanOrder(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, o)
	}
	return out, rows.Err()
}

// CheckoutRetention is how long estimates and addresses are kept: far past their
// 30 minutes of use, so an order's support case can still look at them.
const CheckoutRetention = 7 * 24 * time.Hour

// PruneCheckout deletes estimates and addresses made before before, in batches.
// Orders keep their own copies of both.
func (db *DB) PruneCheckout(ctx context.Context, before time.Time) (int64, error) {
	a, err := db.deleteBatches(ctx, "checkout_addresses", "id", before)
	if err != nil {
		return a, fmt.Errorf("store: prune checkout: %w", err)
	}
	e, err := db.deleteBatches(ctx, "checkout_estimates", "id", before)
	if err != nil {
		return a + e, fmt.Errorf("store: prune checkout: %w", err)
	}
	return a + e, nil
}
