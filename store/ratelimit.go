package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// TakeRate takes one request from key's shared budget with the generic cell rate
// algorithm (GCRA): a request is let in when the key's theoretical arrival time
// (tat), pushed on by interval, is at most tolerance ahead of now. interval is one
// request's share of time (1/rate) and tolerance the burst's (burst/rate), so the
// budget is the token bucket's: burst at once, then rate per second. It is one
// atomic upsert on both engines, so every instance on the database draws on the
// same budget. It reports whether the request is let in and how far the key's tat
// is ahead of now afterwards (the bucket's deficit: 0 is a full bucket). A refused
// request changes nothing. Times are the store's clock, as for leases.
func (db *DB) TakeRate(ctx context.Context, key string, interval, tolerance time.Duration) (ok bool, ahead time.Duration, err error) {
	if key == "" || !storable(key) || interval <= 0 || tolerance < interval {
		return false, 0, fmt.Errorf("store: rate %q: need a key and 0 < interval <= tolerance", key)
	}
	greatest := "MAX"
	if db.engine == EnginePostgres {
		greatest = "GREATEST"
	}
	var tat int64
	err = db.write(ctx, func(q queryer) error {
		now := micros(db.clock())
		step := interval.Microseconds()
		err := q.QueryRowContext(ctx, `INSERT INTO rate_limits (key, tat) VALUES ($1, $5)
			ON CONFLICT (key) DO UPDATE SET tat = `+greatest+`(rate_limits.tat, $2) + $3
			WHERE `+greatest+`(rate_limits.tat, $2) <= $4
			RETURNING tat`, key, now, step, now+tolerance.Microseconds()-step, now+step).Scan(&tat)
		switch {
		case err == nil:
			ok = true
		case errors.Is(err, sql.ErrNoRows): // refused: read where the key stands
			err = q.QueryRowContext(ctx, "SELECT tat FROM rate_limits WHERE key = $1", key).Scan(&tat)
		}
		if err != nil {
			return fmt.Errorf("store: take rate %s: %w", key, err)
		}
		ahead = max(0, time.Duration(tat-now)*time.Microsecond)
		return nil
	})
	return ok, ahead, err
}

// PruneRateLimits deletes the rate budgets that have refilled completely (their
// tat has passed), which are the same as no row.
func (db *DB) PruneRateLimits(ctx context.Context) (int64, error) {
	res, err := db.w.ExecContext(ctx, "DELETE FROM rate_limits WHERE tat <= $1", micros(db.clock()))
	if err != nil {
		return 0, fmt.Errorf("store: prune rate limits: %w", err)
	}
	return res.RowsAffected()
}
