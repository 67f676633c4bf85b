package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/commerce"
)

// Orders returns a page of the merchant's orders in the filter's environment,
// newest first, filtered by customer id or wallet.
func (db *DB) Orders(ctx context.Context, f commerce.OrderFilter) ([]*commerce.Order, bool, error) {
	if f.StartingAfter != nil && f.EndingBefore != nil {
		return nil, false, kassa.Invalidf("ending_before", "invalid_cursor",
			"starting_after and ending_before cannot be used together.")
	}
	for _, s := range []*string{f.CustomerID, f.WalletAddress, f.StartingAfter, f.EndingBefore} {
		if s != nil && !storable(*s) {
			return nil, false, kassa.Invalidf("customer_id", "invalid_parameter", "Filters must be valid UTF-8 text.")
		}
	}
	limit := f.Limit
	if limit <= 0 {
		limit = DefaultListLimit
	}
	limit = min(limit, MaxListLimit)
	w := &where{}
	w.add("merchant_id = %s", f.MerchantID)
	w.add("environment = %s", string(f.Environment))
	if f.CustomerID != nil {
		w.add("customer_id = %s", *f.CustomerID)
	}
	if f.WalletAddress != nil {
		w.add("LOWER(wallet_address) = LOWER(%s)", *f.WalletAddress)
	}
	statuses := make([]string, len(f.Statuses))
	for i, s := range f.Statuses {
		statuses[i] = string(s)
	}
	w.in("status", statuses)
	order := " ORDER BY created_at DESC, id DESC"
	cursor, param, backward := f.StartingAfter, "starting_after", false
	if f.EndingBefore != nil {
		cursor, param, backward = f.EndingBefore, "ending_before", true
	}
	if cursor != nil {
		badCursor := kassa.Invalidf(param, "invalid_cursor", "%s is not an order id of this merchant.", param)
		if !kassa.ValidUUID(*cursor) {
			return nil, false, badCursor
		}
		var created int64
		err := db.r.QueryRowContext(ctx, "SELECT created_at FROM orders WHERE id = $1 AND merchant_id = $2",
			*cursor, f.MerchantID).Scan(&created)
		if errors.Is(err, sql.ErrNoRows) {
			return nil, false, badCursor
		}
		if err != nil {
			return nil, false, fmt.Errorf("store: order cursor: %w", err)
		}
		if backward {
			w.add("(created_at, id) > (%s, %s)", created, *cursor)
			order = " ORDER BY created_at ASC, id ASC"
		} else {
			w.add("(created_at, id) < (%s, %s)", created, *cursor)
		}
	}
	rows, err := db.r.QueryContext(ctx, "SELECT data FROM orders"+w.String()+order+" LIMIT "+strconv.Itoa(limit+1), w.args...)
	if err != nil {
		return nil, false, fmt.Errorf("store: list orders: %w", err)
	}
	defer rows.Close()
	out := []*commerce.Order{}
	for rows.Next() {
		o, err := scanOrder(rows)
		if err != nil {
			return nil, false, fmt.Errorf("store: list orders: %w", err)
		}
		out = append(out, o)
	}
	if err := rows.Err(); err != nil {
		return nil, false, fmt.Errorf("store: list orders: %w", err)
	}
	out, more := trimPage(out, limit, backward)
	return out, more, nil
}
