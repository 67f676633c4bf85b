package store

import (
	"context"
	"database/sql"
	"fmt"
	"math/big"
	"strings"
	"time"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/watch"
)

// watchedColumns are what WatchedAddresses reads of an address and its invoice.
// CROSS JOIN makes SQLite start from invoices (PostgreSQL plans it as any inner
// join); see watchedQuery.
const watchedColumns = `SELECT pa.address_index, pa.address, pa.invoice_id, i.merchant_id, pa.token_id, pa.rate, pa.expires_at,
	i.expires_at FROM invoices i CROSS JOIN payment_addresses pa
	WHERE pa.invoice_id = i.id AND pa.network = $2 AND pa.environment = $1 AND i.environment = $1`

// watchedQuery selects the deposit addresses of network in env whose invoices are
// watched: open ones (unpaid, underpaid) whatever their expiry, since a pending
// payment keeps an invoice open, and any other until WatchAfterExpiry after its
// expires_at ($3 is now - WatchAfterExpiry), so late money is seen and kept. The
// two halves are disjoint; each starts from a partial index of invoices (the open
// ones', the closed ones' expiry) and looks their addresses up by primary key,
// rather than reading every address the network ever had.
const watchedQuery = watchedColumns + ` AND i.status IN ('unpaid', 'underpaid')
	UNION ALL ` + watchedColumns + ` AND i.expires_at > $3 AND i.status NOT IN ('unpaid', 'underpaid')
	ORDER BY 1`

// watchedSinceQuery selects watchedColumns, the invoice's status and quote_seq of
// the addresses of env and network whose quote_seq is above $3, starting from the
// index on quote_seq (CROSS JOIN keeps SQLite to that order).
const watchedSinceQuery = `SELECT pa.address_index, pa.address, pa.invoice_id, i.merchant_id, pa.token_id, pa.rate, pa.expires_at,
	i.expires_at, pa.quote_seq, i.status FROM payment_addresses pa CROSS JOIN invoices i
	WHERE pa.invoice_id = i.id AND pa.environment = $1 AND pa.network = $2 AND pa.quote_seq > $3
	ORDER BY pa.quote_seq`

// WatchedAddresses lists network's deposit addresses in environment env whose
// invoices are still watched at now: unpaid or underpaid ones whatever their
// expiry, and any other (paid, expired, canceled) while now < expires_at +
// kassa.WatchAfterExpiry. Each comes with its invoice, merchant and the token and
// rate of its last quote with the quote's expiry, in derivation order.
func (db *DB) WatchedAddresses(ctx context.Context, env kassa.Environment, network string, now time.Time) ([]watch.Address, error) {
	if !storable(network) || !env.Valid() {
		return nil, nil
	}
	rows, err := db.r.QueryContext(ctx, watchedQuery, string(env), network, micros(now.Add(-kassa.WatchAfterExpiry)))
	if err != nil {
		return nil, fmt.Errorf("store: watched addresses: %w", err)
	}
	defer rows.Close()
	var out []watch.Address
	for rows.Next() {
		a, err := scanWatched(rows, env)
		if err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	return out, rows.Err()
}

// scanWatched reads one row of watchedColumns.
func scanWatched(rows *sql.Rows, env kassa.Environment, more ...any) (watch.Address, error) {
	var (
		a                = watch.Address{Environment: env}
		index            int64
		rate             string
		expires, invoice int64
	)
	if err := rows.Scan(append([]any{&index, &a.Address, &a.InvoiceID, &a.MerchantID, &a.TokenID, &rate, &expires, &invoice}, more...)...); err != nil {
		return a, fmt.Errorf("store: watched addresses: %w", err)
	}
	var ok bool
	if a.USDPerToken, ok = new(big.Rat).SetString(rate); !ok {
		return a, fmt.Errorf("store: payment address of %s: bad rate %q", a.InvoiceID, rate)
	}
	a.QuoteExpiresAt, a.InvoiceExpiresAt = fromMicros(expires), fromMicros(invoice)
	return a, nil
}

// QuoteMark returns the highest quote number (quote_seq) of network's deposit
// addresses in env, 0 when there are none: every address locked or requoted after
// this call has a higher one (WatchedAddressesSince).
func (db *DB) QuoteMark(ctx context.Context, env kassa.Environment, network string) (int64, error) {
	var mark int64
	if err := db.r.QueryRowContext(ctx, `SELECT COALESCE(MAX(quote_seq), 0) FROM payment_addresses
		WHERE environment = $1 AND network = $2`, string(env), network).Scan(&mark); err != nil {
		return 0, fmt.Errorf("store: quote mark: %w", err)
	}
	return mark, nil
}

// WatchedAddressesSince lists network's deposit addresses in env locked or
// requoted after quote number after (a mark from QuoteMark or an earlier call)
// whose invoices are watched at now, as WatchedAddresses, and returns the highest
// quote number read: the mark for the next call. Quote numbers commit in ascending
// order (nextQuoteSeq), so a call sees every change after the mark; it reads the
// unique index on (environment, network, quote_seq) from the mark on.
func (db *DB) WatchedAddressesSince(ctx context.Context, env kassa.Environment, network string, after int64, now time.Time) ([]watch.Address, int64, error) {
	if !storable(network) || !env.Valid() {
		return nil, after, nil
	}
	rows, err := db.r.QueryContext(ctx, watchedSinceQuery, string(env), network, after)
	if err != nil {
		return nil, after, fmt.Errorf("store: watched addresses since %d: %w", after, err)
	}
	defer rows.Close()
	var (
		out    []watch.Address
		seq    int64
		status string
	)
	horizon := now.Add(-kassa.WatchAfterExpiry)
	for rows.Next() {
		a, err := scanWatched(rows, env, &seq, &status)
		if err != nil {
			return nil, after, err
		}
		after = max(after, seq)
		if st := kassa.InvoiceStatus(status); st == kassa.StatusUnpaid || st == kassa.StatusUnderpaid || a.InvoiceExpiresAt.After(horizon) {
			out = append(out, a)
		}
	}
	return out, after, rows.Err()
}

// StillWatched returns which of the invoices ids (of network's deposit addresses in
// env) are still watched at now, by WatchedAddresses' rule: open ones, and any other
// until kassa.WatchAfterExpiry after its expiry. It reads the invoices by primary
// key, at most 500 a query.
func (db *DB) StillWatched(ctx context.Context, env kassa.Environment, ids []string, now time.Time) ([]string, error) {
	var out []string
	for len(ids) > 0 {
		part := ids[:min(len(ids), 500)]
		ids = ids[len(part):]
		args := []any{string(env), micros(now.Add(-kassa.WatchAfterExpiry))}
		var in strings.Builder
		for i, id := range part {
			if i > 0 {
				in.WriteString(", ")
			}
			args = append(args, id)
			fmt.Fprintf(&in, "$%d", len(args))
		}
		rows, err := db.r.QueryContext(ctx, `SELECT id FROM invoices WHERE environment = $1 AND id IN (`+in.String()+`)
			AND (status IN ('unpaid', 'underpaid') OR expires_at > $2)`, args...)
		if err != nil {
			return nil, fmt.Errorf("store: still watched: %w", err)
		}
		for rows.Next() {
			var id string
			if err := rows.Scan(&id); err != nil {
				rows.Close()
				return nil, fmt.Errorf("store: still watched: %w", err)
			}
			out = append(out, id)
		}
		err = rows.Err()
		rows.Close()
		if err != nil {
			return nil, fmt.Errorf("store: still watched: %w", err)
		}
	}
	return out, nil
}
