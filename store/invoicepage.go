package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/kassapay/kassa"
)

// invoicePage is the query of one page of invoices: limit rows and one of
// look-ahead, oldest first when backward (ending_before).
type invoicePage struct {
	query    string
	args     []any
	limit    int
	backward bool
}

// invoicePageQuery builds the query of the page f asks for at time now. The
// cursor is a row-value comparison, (created_at, id) < (X, Y), which both engines
// take as a range on the list indexes (merchant_id[, environment], created_at, id),
// so a deep page starts at its cursor instead of reading every newer row.
func (db *DB) invoicePageQuery(ctx context.Context, f kassa.InvoiceFilter, now time.Time) (invoicePage, error) {
	limit := f.Limit
	if limit <= 0 {
		limit = DefaultListLimit
	}
	limit = min(limit, MaxListLimit)
	w, err := db.invoiceWhere(ctx, f, now)
	if err != nil {
		return invoicePage{}, err
	}
	order := " ORDER BY created_at DESC, id DESC"
	cursor, param, backward := f.StartingAfter, "starting_after", false
	if f.EndingBefore != "" {
		cursor, param, backward = f.EndingBefore, "ending_before", true
	}
	if cursor != "" {
		bad := kassa.Invalidf(param, "invalid_cursor", "%s is not an invoice id of this merchant.", param)
		if !kassa.ValidUUID(cursor) {
			return invoicePage{}, bad
		}
		var created int64
		err := db.r.QueryRowContext(ctx, "SELECT created_at FROM invoices WHERE id = $1 AND merchant_id = $2",
			cursor, f.MerchantID).Scan(&created)
		if errors.Is(err, sql.ErrNoRows) {
			return invoicePage{}, bad
		}
		if err != nil {
			return invoicePage{}, fmt.Errorf("store: invoice cursor: %w", err)
		}
		if backward {
			w.add("(created_at, id) > (%s, %s)", created, cursor)
			order = " ORDER BY created_at ASC, id ASC"
		} else {
			w.add("(created_at, id) < (%s, %s)", created, cursor)
		}
	}
	q := "SELECT " + invoiceColumns + db.invoicesFrom(w, f, now) + w.String() + order + " LIMIT " + strconv.Itoa(limit+1)
	return invoicePage{query: q, args: w.queryArgs(), limit: limit, backward: backward}, nil
}

// trimPage cuts a page read with one row of look-ahead down to limit rows, reports
// whether there were more, and turns a backward page (read oldest first) back to
// newest first.
func trimPage[T any](out []T, limit int, backward bool) ([]T, bool) {
	more := len(out) > limit
	if more {
		out = out[:limit]
	}
	if backward {
		slices.Reverse(out)
	}
	return out, more
}
