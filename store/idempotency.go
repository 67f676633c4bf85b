package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/idempotency"
	"github.com/kassapay/kassa/sealed"
)

const idempotencyKeyWhere = "merchant_id = $1 AND environment = $2 AND route = $3 AND idempotency_key = $4"

func idemArgs(s kassa.IdempotencyScope, more ...any) []any {
	return append([]any{s.MerchantID, string(s.Environment), s.Route, s.Key}, more...)
}

// ClaimIdempotencyKey claims the key for a request with this fingerprint. It returns
// nil when the caller now owns the key, or the record that holds it. A record older
// than kassa.IdempotencyTTL, or running for longer than kassa.IdempotencyStale, is
// taken over: it is deleted only if it is still that record (same created_at), then
// the insert is tried again, so of many concurrent claimers exactly one wins.
func (db *DB) ClaimIdempotencyKey(ctx context.Context, s kassa.IdempotencyScope, fingerprint string) (*idempotency.Record, error) {
	if !storable(s.Key) || !storable(s.Route) || !storable(fingerprint) {
		return nil, kassa.Invalidf("Idempotency-Key", "invalid_idempotency_key", "The Idempotency-Key header must be UTF-8 text.")
	}
	for attempt := 0; attempt < 5; attempt++ {
		var (
			rec     *idempotency.Record
			claimed bool
		)
		err := db.write(ctx, func(q queryer) error {
			now := db.clock()
			res, err := q.ExecContext(ctx, `INSERT INTO idempotency_keys
				(merchant_id, environment, route, idempotency_key, fingerprint, done, status_code, created_at, owner)
				VALUES ($1, $2, $3, $4, $5, $6, 0, $7, $8) ON CONFLICT DO NOTHING`, idemArgs(s, fingerprint, false, micros(now), s.Owner)...)
			if err != nil {
				return fmt.Errorf("store: claim idempotency key: %w", err)
			}
			if n, err := res.RowsAffected(); err != nil {
				return fmt.Errorf("store: claim idempotency key: %w", err)
			} else if n == 1 {
				claimed = true
				return nil
			}
			if rec, err = idempotencyRecord(ctx, q, s); err != nil {
				return err // sql.ErrNoRows: released or taken over meanwhile
			}
			age := now.Sub(rec.CreatedAt)
			if age < kassa.IdempotencyTTL && (rec.Done || age < kassa.IdempotencyStale) {
				return nil
			}
			stale := rec.CreatedAt
			rec = nil // take the stale record over and try again
			if _, err := q.ExecContext(ctx, "DELETE FROM idempotency_keys WHERE "+idempotencyKeyWhere+" AND created_at = $5",
				idemArgs(s, micros(stale))...); err != nil {
				return fmt.Errorf("store: take over idempotency key: %w", err)
			}
			return nil
		})
		switch {
		case errors.Is(err, sql.ErrNoRows):
			continue
		case err != nil:
			return nil, err
		case claimed || rec != nil:
			return rec, nil
		}
	}
	return nil, errors.New("store: claim idempotency key: too much contention")
}

func idempotencyRecord(ctx context.Context, q queryer, s kassa.IdempotencyScope) (*idempotency.Record, error) {
	var (
		rec     idempotency.Record
		created int64
		body    []byte
	)
	err := q.QueryRowContext(ctx, "SELECT fingerprint, done, status_code, body, created_at FROM idempotency_keys WHERE "+
		idempotencyKeyWhere, idemArgs(s)...).Scan(&rec.Fingerprint, &rec.Done, &rec.StatusCode, &body, &created)
	if err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return nil, err
		}
		return nil, fmt.Errorf("store: read idempotency key: %w", err)
	}
	rec.Body, rec.CreatedAt = body, fromMicros(created)
	if id, ok := sealed.RefEventID(body); ok {
		if rec.Ref, err = responseRef(ctx, q, s, id); err != nil {
			return nil, err
		}
	}
	return &rec, nil
}

// responseRef reads the data of the event a saved response refers to
// (sealed.RefEventID), the key's merchant and environment's only. An event that is
// not there leaves the reference unresolved (nil): the response then does not
// open, and its request is answered idempotency_response_unreadable.
func responseRef(ctx context.Context, q queryer, s kassa.IdempotencyScope, eventID string) ([]byte, error) {
	var (
		data string
		z    []byte
	)
	err := q.QueryRowContext(ctx, "SELECT data, data_z FROM events WHERE id = $1 AND merchant_id = $2 AND environment = $3",
		eventID, s.MerchantID, string(s.Environment)).Scan(&data, &z)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("store: read idempotency key's event: %w", err)
	}
	ref, err := eventData(data, z)
	if err != nil {
		return nil, nil // corrupt: unreadable, as a missing event
	}
	return ref, nil
}

// IdempotencyRecord returns the live record under the key, or nil: none, or one a
// claim would take over (older than kassa.IdempotencyTTL, or running for longer
// than kassa.IdempotencyStale). It reads, on SQLite from a reader connection.
func (db *DB) IdempotencyRecord(ctx context.Context, s kassa.IdempotencyScope) (*idempotency.Record, error) {
	if !storable(s.Key) || !storable(s.Route) {
		return nil, kassa.Invalidf("Idempotency-Key", "invalid_idempotency_key", "The Idempotency-Key header must be UTF-8 text.")
	}
	rec, err := idempotencyRecord(ctx, db.r, s)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	age := db.clock().Sub(rec.CreatedAt)
	if age >= kassa.IdempotencyTTL || !rec.Done && age >= kassa.IdempotencyStale {
		return nil, nil
	}
	return rec, nil
}

// SaveIdempotentResponse stores the finished response of a request that made no
// durable claim; kassa.ErrClaimLost when a live record holds the key.
func (db *DB) SaveIdempotentResponse(ctx context.Context, s kassa.IdempotencyScope, fingerprint string, status int, body []byte) error {
	if !storable(fingerprint) {
		return kassa.Invalidf("Idempotency-Key", "invalid_idempotency_key", "The Idempotency-Key header must be UTF-8 text.")
	}
	err := db.write(ctx, func(q queryer) error {
		return insertIdempotency(ctx, q, s, fingerprint, status, body, db.clock())
	})
	if err != nil && !errors.Is(err, kassa.ErrClaimLost) {
		return fmt.Errorf("store: save idempotent response: %w", err)
	}
	return err
}

// insertIdempotency stores a finished response under the key in the caller's
// transaction, taking over a record that is no longer live (as ClaimIdempotencyKey
// would). A live record makes it return kassa.ErrClaimLost: on one instance the
// idempotency layer never lets two requests with a key run at once, so this is a
// concurrent request on another instance that committed first, and the unique key
// is what keeps the change from being made twice.
func insertIdempotency(ctx context.Context, q queryer, s kassa.IdempotencyScope, fingerprint string, status int, body []byte, now time.Time) error {
	query, args := idempotencyInsert(s, fingerprint, status, body, now)
	res, err := q.ExecContext(ctx, query, args...)
	if err != nil {
		return fmt.Errorf("store: save idempotent response: %w", err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return fmt.Errorf("store: save idempotent response: %w", err)
	} else if n != 1 {
		return kassa.ErrClaimLost
	}
	return nil
}

// idempotencyInsert returns the statement that stores a finished response under
// the key unless a live record holds it (then it changes no row), and its arguments.
func idempotencyInsert(s kassa.IdempotencyScope, fingerprint string, status int, body []byte, now time.Time) (string, []any) {
	if body == nil {
		body = []byte{}
	}
	return `INSERT INTO idempotency_keys
		(merchant_id, environment, route, idempotency_key, fingerprint, done, status_code, body, created_at, owner)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
		ON CONFLICT (merchant_id, environment, route, idempotency_key) DO UPDATE SET
		fingerprint = excluded.fingerprint, done = excluded.done, status_code = excluded.status_code,
		body = excluded.body, created_at = excluded.created_at, owner = excluded.owner
		WHERE idempotency_keys.created_at <= $11 OR (idempotency_keys.done = $12 AND idempotency_keys.created_at <= $13)`,
		idemArgs(s, fingerprint, true, status, body, micros(now), s.Owner,
			micros(now.Add(-kassa.IdempotencyTTL)), false, micros(now.Add(-kassa.IdempotencyStale)))
}

// CompleteIdempotencyKey saves the response of the request that owns the key.
func (db *DB) CompleteIdempotencyKey(ctx context.Context, s kassa.IdempotencyScope, status int, body []byte) error {
	err := db.write(ctx, func(q queryer) error { return completeIdempotency(ctx, q, s, status, body) })
	if errors.Is(err, kassa.ErrClaimLost) {
		return nil // the key has a new owner; its response is not ours to save
	}
	if err != nil {
		return fmt.Errorf("store: complete idempotency key: %w", err)
	}
	return nil
}

// completeIdempotency saves the response under the caller's running claim. A claim
// taken over meanwhile (the request ran past kassa.IdempotencyStale) belongs to its
// new owner: nothing is saved and kassa.ErrClaimLost is returned.
func completeIdempotency(ctx context.Context, q queryer, s kassa.IdempotencyScope, status int, body []byte) error {
	if body == nil {
		body = []byte{}
	}
	res, err := q.ExecContext(ctx, "UPDATE idempotency_keys SET done = $5, status_code = $6, body = $7 WHERE "+
		idempotencyKeyWhere+" AND done = $8 AND owner = $9", idemArgs(s, true, status, body, false, s.Owner)...)
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil {
		return err
	} else if n != 1 {
		return kassa.ErrClaimLost
	}
	return nil
}

// ReleaseIdempotencyKey forgets a running claim, so a retry can claim the key again.
// A completed record is kept.
func (db *DB) ReleaseIdempotencyKey(ctx context.Context, s kassa.IdempotencyScope) error {
	if err := db.write(ctx, func(q queryer) error {
		_, err := q.ExecContext(ctx, "DELETE FROM idempotency_keys WHERE "+idempotencyKeyWhere+" AND done = $5 AND owner = $6",
			idemArgs(s, false, s.Owner)...)
		return err
	}); err != nil {
		return fmt.Errorf("store: release idempotency key: %w", err)
	}
	return nil
}

// PruneIdempotencyKeys deletes records older than kassa.IdempotencyTTL and returns
// how many it deleted. On SQLite it walks the records by rowid, the order they
// were inserted in (their created_at index is gone: migration 0021), in short
// writes; a record whose created_at is out of that order (a clock set back, or a
// claim taken over in place, which keeps its rowid) is only kept a while longer.
// PostgreSQL deletes by its index of created_at.
func (db *DB) PruneIdempotencyKeys(ctx context.Context) (int64, error) {
	cutoff := micros(db.clock().Add(-kassa.IdempotencyTTL))
	if db.engine == EngineSQLite {
		n, err := db.pruneByKey(ctx, "idempotency_keys", "rowid", "created_at <= $3", cutoff)
		if err != nil {
			return n, fmt.Errorf("store: prune idempotency keys: %w", err)
		}
		return n, nil
	}
	res, err := db.w.ExecContext(ctx, "DELETE FROM idempotency_keys WHERE created_at <= $1", cutoff)
	if err != nil {
		return 0, fmt.Errorf("store: prune idempotency keys: %w", err)
	}
	return res.RowsAffected()
}
