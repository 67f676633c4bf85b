package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/apikeys"
)

var _ apikeys.Store = (*DB)(nil)

const apiKeyColumns = `id, merchant_id, name, scope, environment, prefix, expires_at, last_used_at,
	created_at, revoked_at, revoked_reason`

// DefaultRevokeReason is stored when a key is revoked without a reason.
const DefaultRevokeReason = "requested_by_merchant"

func scanAPIKey(s scanner, extra ...any) (*kassa.APIKey, error) {
	var (
		k                          kassa.APIKey
		scope, env                 string
		expires, lastUsed, revoked sql.Null[int64]
		created                    int64
		reason                     sql.Null[string]
	)
	dest := append([]any{&k.ID, &k.MerchantID, &k.Name, &scope, &env, &k.Prefix, &expires, &lastUsed,
		&created, &revoked, &reason}, extra...)
	if err := s.Scan(dest...); err != nil {
		return nil, err
	}
	k.Scope, k.Environment = kassa.Scope(scope), kassa.Environment(env)
	k.ExpiresAt, k.LastUsedAt, k.RevokedAt = timeOrNil(expires), timeOrNil(lastUsed), timeOrNil(revoked)
	k.CreatedAt = fromMicros(created)
	k.RevokedReason = stringOrNil(reason)
	return &k, nil
}

// CreateAPIKey stores a new key of c, checked by the API keys service, and
// returns it with its secret, which is stored only as a SHA-256 hash, when
// decide, the service's rule, allows it on the merchant (its mainnet access) and
// its count of active keys of the scope (apikeys.Store). The count holds under concurrent creates: the merchant row is
// locked on PostgreSQL and SQLite has a single writer.
func (db *DB) CreateAPIKey(ctx context.Context, merchantID int64, c kassa.APIKeyCreate,
	decide func(m kassa.Merchant, active int) error) (*kassa.APIKey, string, error) {
	now := db.clock()
	if !storable(c.Name) {
		return nil, "", kassa.Invalidf("name", "invalid_name", "name must be valid UTF-8 text.")
	}
	secret, prefix := kassa.NewAPIKeySecret(c.Environment, c.Scope)
	k := &kassa.APIKey{ID: kassa.NewUUID(), MerchantID: merchantID, Name: c.Name, Scope: c.Scope,
		Environment: c.Environment, Prefix: prefix, CreatedAt: now}
	if c.ExpiresAt != nil {
		t := c.ExpiresAt.UTC().Truncate(time.Microsecond)
		k.ExpiresAt = &t
	}
	err := db.tx(ctx, func(tx txq) error {
		var mainnet bool
		err := tx.QueryRowContext(ctx, "SELECT mainnet_enabled FROM merchants WHERE id = $1"+db.forUpdate(), merchantID).Scan(&mainnet)
		if errors.Is(err, sql.ErrNoRows) {
			return kassa.NotFound("merchant")
		}
		if err != nil {
			return fmt.Errorf("store: create api key: %w", err)
		}
		var active int
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM api_keys WHERE merchant_id = $1 AND scope = $2
			AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > $3)`,
			merchantID, string(c.Scope), micros(now)).Scan(&active); err != nil {
			return fmt.Errorf("store: create api key: %w", err)
		}
		if err := decide(kassa.Merchant{ID: merchantID, MainnetEnabled: mainnet}, active); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO api_keys
			(id, merchant_id, name, scope, environment, prefix, secret_hash, expires_at, created_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
			k.ID, merchantID, k.Name, string(k.Scope), string(k.Environment), prefix, kassa.HashSecret(secret),
			nullMicros(k.ExpiresAt), micros(now))
		if err != nil {
			return fmt.Errorf("store: create api key: %w", err)
		}
		return nil
	})
	if err != nil {
		return nil, "", err
	}
	return k, secret, nil
}

// APIKeys lists the merchant's keys, newest first; scope "" lists every scope.
func (db *DB) APIKeys(ctx context.Context, merchantID int64, scope kassa.Scope) ([]*kassa.APIKey, error) {
	q := "SELECT " + apiKeyColumns + " FROM api_keys WHERE merchant_id = $1"
	args := []any{merchantID}
	if scope != "" {
		q += " AND scope = $2"
		args = append(args, string(scope))
	}
	rows, err := db.r.QueryContext(ctx, q+" ORDER BY created_at DESC, id DESC", args...)
	if err != nil {
		return nil, fmt.Errorf("store: list api keys: %w", err)
	}
	defer rows.Close()
	out := []*kassa.APIKey{}
	for rows.Next() {
		k, err := scanAPIKey(rows)
		if err != nil {
			return nil, fmt.Errorf("store: list api keys: %w", err)
		}
		out = append(out, k)
	}
	return out, rows.Err()
}

// APIKey returns the merchant's key with id keyID, whatever its status. Streams
// call it to end when their key is revoked.
func (db *DB) APIKey(ctx context.Context, merchantID int64, keyID string) (*kassa.APIKey, error) {
	if !storable(keyID) {
		return nil, kassa.NotFound("API key")
	}
	k, err := scanAPIKey(db.r.QueryRowContext(ctx, "SELECT "+apiKeyColumns+" FROM api_keys WHERE id = $1 AND merchant_id = $2",
		keyID, merchantID))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, kassa.NotFound("API key")
	}
	if err != nil {
		return nil, fmt.Errorf("store: api key: %w", err)
	}
	return k, nil
}

// RevokeAPIKey revokes one of the merchant's keys. Another merchant's key is not
// found. Revoking twice keeps the first time and reason; an empty reason is stored as
// DefaultRevokeReason.
func (db *DB) RevokeAPIKey(ctx context.Context, merchantID int64, keyID, reason string) (*kassa.APIKey, error) {
	if !kassa.ValidUUID(keyID) {
		return nil, kassa.NotFound("api key")
	}
	if reason == "" {
		reason = DefaultRevokeReason
	}
	if !storable(reason) {
		return nil, kassa.Invalidf("reason", "invalid_reason", "reason must be valid UTF-8 text.")
	}
	if err := db.tx(ctx, func(tx txq) error {
		var prefix string
		err := tx.QueryRowContext(ctx, `UPDATE api_keys SET revoked_at = $1, revoked_reason = $2
			WHERE id = $3 AND merchant_id = $4 AND revoked_at IS NULL RETURNING prefix`,
			micros(db.clock()), reason, keyID, merchantID).Scan(&prefix)
		if errors.Is(err, sql.ErrNoRows) {
			return nil // unknown, another merchant's, or revoked before
		}
		if err != nil || db.pg == nil {
			return err
		}
		// Sent at commit: every instance on the database drops the key at once.
		_, err = tx.ExecContext(ctx, "SELECT pg_notify($1, $2)", notifyChannel, db.pg.payload(notifyRevoke+prefix))
		return err
	}); err != nil {
		return nil, fmt.Errorf("store: revoke api key: %w", err)
	}
	k, err := scanAPIKey(db.w.QueryRowContext(ctx,
		"SELECT "+apiKeyColumns+" FROM api_keys WHERE id = $1 AND merchant_id = $2", keyID, merchantID))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, kassa.NotFound("api key")
	}
	if err != nil {
		return nil, fmt.Errorf("store: revoke api key: %w", err)
	}
	db.keys.forget(k.Prefix)
	return k, nil
}

func unauthenticated(code, msg string) error {
	return &kassa.Error{Kind: kassa.KindUnauthenticated, Code: code, Message: msg}
}

// AuthenticateAPIKey finds the key a secret belongs to: by its public prefix, then a
// constant-time comparison of hashes. Unknown or malformed secrets give
// invalid_api_key, revoked keys api_key_revoked, expired keys api_key_expired.
func (db *DB) AuthenticateAPIKey(ctx context.Context, secret string) (*kassa.APIKey, error) {
	prefix, ok := kassa.ParseAPIKeySecret(secret)
	if !ok {
		return nil, unauthenticated("invalid_api_key", "Invalid API key.")
	}
	now := db.clock()
	live := db.pg == nil || db.pg.live.Load()
	cached, hash, ok := db.keys.get(prefix, now)
	k := &cached
	if !ok || !live {
		gen := db.keys.generation()
		var err error
		k, err = scanAPIKey(db.r.QueryRowContext(ctx,
			"SELECT "+apiKeyColumns+", secret_hash FROM api_keys WHERE prefix = $1", prefix), &hash)
		if errors.Is(err, sql.ErrNoRows) {
			kassa.SecretMatches(secret, make([]byte, 32)) // same work as a known prefix
			return nil, unauthenticated("invalid_api_key", "Invalid API key.")
		}
		if err != nil {
			return nil, fmt.Errorf("store: authenticate api key: %w", err)
		}
		if live {
			db.keys.put(*k, hash, now, gen)
		}
	}
	if !kassa.SecretMatches(secret, hash) {
		return nil, unauthenticated("invalid_api_key", "Invalid API key.")
	}
	switch k.Status(now) {
	case kassa.KeyRevoked:
		return nil, unauthenticated("api_key_revoked", "This API key has been revoked.")
	case kassa.KeyExpired:
		return nil, unauthenticated("api_key_expired", "This API key has expired.")
	}
	return k, nil
}

// TouchAPIKey records that the key was used at t; it never moves last_used_at back.
func (db *DB) TouchAPIKey(ctx context.Context, keyID string, t time.Time) error {
	v := micros(t)
	if _, err := db.w.ExecContext(ctx, `UPDATE api_keys SET last_used_at = $1
		WHERE id = $2 AND (last_used_at IS NULL OR last_used_at < $1)`, v, keyID); err != nil {
		return fmt.Errorf("store: touch api key: %w", err)
	}
	return nil
}
