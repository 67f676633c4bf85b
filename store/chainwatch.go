package store

import (
	"context"
	"fmt"
	"math/big"
	"time"

	"github.com/kassapay/kassa"
)

// watchedColumns are what WatchedAddresses reads of an address and its invoice.
// CROSS JOIN makes SQLite start from invoices (PostgreSQL plans it as any inner
// join); see watchedQuery.
const watchedColumns = `SELECT pa.address_index, pa.address, pa.invoice_id, i.merchant_id, pa.token_id, pa.rate, pa.expires_at
	FROM invoices i CROSS JOIN payment_addresses pa
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

// WatchedAddresses lists network's deposit addresses in environment env whose
// invoices are still watched at now: unpaid or underpaid ones whatever their
// expiry, and any other (paid, expired, canceled) while now < expires_at +
// kassa.WatchAfterExpiry. Each comes with its invoice, merchant and the token and
// rate of its last quote with the quote's expiry, in derivation order.
func (db *DB) WatchedAddresses(ctx context.Context, env kassa.Environment, network string, now time.Time) ([]kassa.WatchedAddress, error) {
	if !storable(network) || !env.Valid() {
		return nil, nil
	}
	rows, err := db.r.QueryContext(ctx, watchedQuery, string(env), network, micros(now.Add(-kassa.WatchAfterExpiry)))
	if err != nil {
		return nil, fmt.Errorf("store: watched addresses: %w", err)
	}
	defer rows.Close()
	var out []kassa.WatchedAddress
	for rows.Next() {
		var (
			a       = kassa.WatchedAddress{Environment: env}
			index   int64
			rate    string
			expires int64
		)
		if err := rows.Scan(&index, &a.Address, &a.InvoiceID, &a.MerchantID, &a.TokenID, &rate, &expires); err != nil {
			return nil, fmt.Errorf("store: watched addresses: %w", err)
		}
		var ok bool
		if a.USDPerToken, ok = new(big.Rat).SetString(rate); !ok {
			return nil, fmt.Errorf("store: payment address of %s: bad rate %q", a.InvoiceID, rate)
		}
		a.QuoteExpiresAt = fromMicros(expires)
		out = append(out, a)
	}
	return out, rows.Err()
}
