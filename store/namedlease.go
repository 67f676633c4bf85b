package store

import (
	"context"
	"fmt"
	"time"

	"github.com/kassapay/kassa"
)

// Compile-time check that DB hands out named leases.
var _ kassa.Leaser = (*DB)(nil)

// TryLease takes the lease name for holder until now+ttl, or renews it when holder
// already has it, and reports whether holder has it. Another holder's lease wins
// until it expires (expires_at <= now), then anyone may take it. It is one atomic
// statement on both engines: an upsert whose update applies only to holder's own or
// an expired lease, so of two instances racing exactly one gets a row. Times are
// the store's clock; instances sharing a database should keep their clocks close
// (well under ttl). A lease is no data a follower reads: taking one wakes nobody.
func (db *DB) TryLease(ctx context.Context, name, holder string, ttl time.Duration) (bool, error) {
	if name == "" || holder == "" || !storable(name) || !storable(holder) || ttl <= 0 {
		return false, fmt.Errorf("store: lease %q for %q: need a name, a holder and a positive ttl", name, holder)
	}
	var got bool
	err := db.write(ctx, func(q queryer) error {
		now := db.clock()
		res, err := q.ExecContext(ctx, `INSERT INTO leases (name, holder, expires_at) VALUES ($1, $2, $3)
			ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at
			WHERE leases.holder = excluded.holder OR leases.expires_at <= $4`,
			name, holder, micros(now.Add(ttl)), micros(now))
		if err != nil {
			return fmt.Errorf("store: take lease %s: %w", name, err)
		}
		n, err := res.RowsAffected()
		if err != nil {
			return fmt.Errorf("store: take lease %s: %w", name, err)
		}
		got = n == 1
		return nil
	})
	return got, err
}

// ReleaseLease gives up holder's lease name, if it has it, so another instance
// may take it at once; another holder's lease is left alone.
func (db *DB) ReleaseLease(ctx context.Context, name, holder string) error {
	if !storable(name) || !storable(holder) {
		return nil
	}
	return db.write(ctx, func(q queryer) error {
		if _, err := q.ExecContext(ctx, "DELETE FROM leases WHERE name = $1 AND holder = $2", name, holder); err != nil {
			return fmt.Errorf("store: release lease %s: %w", name, err)
		}
		return nil
	})
}

// LeaseHolders returns every lease's holder by name, expired or not.
func (db *DB) LeaseHolders(ctx context.Context) (map[string]string, error) {
	rows, err := db.r.QueryContext(ctx, "SELECT name, holder FROM leases")
	if err != nil {
		return nil, fmt.Errorf("store: leases: %w", err)
	}
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var name, holder string
		if err := rows.Scan(&name, &holder); err != nil {
			return nil, fmt.Errorf("store: leases: %w", err)
		}
		out[name] = holder
	}
	return out, rows.Err()
}
