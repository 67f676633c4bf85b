package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/signin"
)

// errSignedOut is the answer for an unknown or ended session.
func errSignedOut() error {
	return kassa.Errorf(kassa.KindUnauthenticated, "session_ended", "Your session has ended; sign in again.")
}

// CreateDashboardSession stores a session for token, hashed, under the
// merchant's credential version version; signed out when the version moved on.
func (db *DB) CreateDashboardSession(ctx context.Context, token string, merchantID, version int64, env kassa.Environment) (*signin.DashboardSession, error) {
	return db.createDashboardSession(ctx, token, merchantID, version, env, false)
}

// CreateDashboardSignIn stores a half sign-in for token, hashed, that waits
// kassa.DashboardCodeTTL for its second-factor code, as CreateDashboardSession.
func (db *DB) CreateDashboardSignIn(ctx context.Context, token string, merchantID, version int64, env kassa.Environment) (*signin.DashboardSession, error) {
	return db.createDashboardSession(ctx, token, merchantID, version, env, true)
}

// DashboardSignIn returns the live half sign-in of token.
func (db *DB) DashboardSignIn(ctx context.Context, token string) (*signin.DashboardSession, error) {
	return db.dashboardSession(ctx, token, true)
}

func (db *DB) createDashboardSession(ctx context.Context, token string, merchantID, version int64, env kassa.Environment, awaiting bool) (*signin.DashboardSession, error) {
	now, ttl := db.clock(), kassa.DashboardSessionTTL
	if awaiting {
		ttl = kassa.DashboardCodeTTL
	}
	s := &signin.DashboardSession{MerchantID: merchantID, Environment: env, CreatedAt: now, ExpiresAt: now.Add(ttl),
		LastSeenAt: now, CredentialVersion: version}
	var n int64
	err := db.write(ctx, func(q queryer) error {
		// The session records the credential version the sign-in observed, and
		// only while it is still the merchant's: a bump since ends it unborn.
		res, err := q.ExecContext(ctx, `INSERT INTO dashboard_sessions (token_hash, merchant_id, environment, created_at, expires_at,
			awaiting_code, credential_version, last_seen_at)
			SELECT $1, id, $2, $3, $4, $5, credential_version, $3 FROM merchants WHERE id = $6 AND credential_version = $7`,
			kassa.HashSecret(token), string(env), micros(now), micros(s.ExpiresAt), awaiting, merchantID, version)
		if err == nil {
			n, err = res.RowsAffected()
		}
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("store: create dashboard session: %w", err)
	}
	if n == 0 {
		return nil, errSignedOut()
	}
	return s, nil
}

// DashboardSession returns the live session of token; one that went
// kassa.DashboardIdleTimeout without a request is kassa.ErrDashboardIdle.
func (db *DB) DashboardSession(ctx context.Context, token string) (*signin.DashboardSession, error) {
	s, err := db.dashboardSession(ctx, token, false)
	if err == nil && s.Idle(db.clock()) {
		return nil, kassa.ErrDashboardIdle()
	}
	return s, err
}

// TouchDashboardSession records now as the last use of the live session of token
// (the dashboard calls it at most once a minute a session, kassa.DashboardTouchEvery).
// A session already idle stays ended: it is not brought back.
func (db *DB) TouchDashboardSession(ctx context.Context, token string) error {
	now := db.clock()
	err := db.write(ctx, func(q queryer) error {
		_, err := q.ExecContext(ctx, `UPDATE dashboard_sessions SET last_seen_at = $1 WHERE token_hash = $2 AND expires_at > $1
			AND awaiting_code = $3 AND last_seen_at > $4`, micros(now), kassa.HashSecret(token), false,
			micros(now.Add(-kassa.DashboardIdleTimeout)))
		return err
	})
	if err != nil {
		return fmt.Errorf("store: touch dashboard session: %w", err)
	}
	return nil
}

// dashboardSession returns the unexpired session of token: a signed-in one, or a
// half sign-in when awaiting; one of an older credential version is ended.
func (db *DB) dashboardSession(ctx context.Context, token string, awaiting bool) (*signin.DashboardSession, error) {
	var (
		s                          signin.DashboardSession
		env                        string
		created, expires, lastSeen int64
	)
	err := db.r.QueryRowContext(ctx, `SELECT s.merchant_id, s.environment, s.created_at, s.expires_at, s.last_seen_at,
		s.credential_version FROM dashboard_sessions s JOIN merchants m ON m.id = s.merchant_id AND m.credential_version = s.credential_version
		WHERE s.token_hash = $1 AND s.expires_at > $2 AND s.awaiting_code = $3`, kassa.HashSecret(token), micros(db.clock()), awaiting).
		Scan(&s.MerchantID, &env, &created, &expires, &lastSeen, &s.CredentialVersion)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, errSignedOut()
	}
	if err != nil {
		return nil, fmt.Errorf("store: dashboard session: %w", err)
	}
	s.Environment, s.CreatedAt, s.ExpiresAt = kassa.Environment(env), fromMicros(created), fromMicros(expires)
	s.LastSeenAt = fromMicros(lastSeen)
	return &s, nil
}

// SetDashboardEnvironment switches the live session of token to env.
func (db *DB) SetDashboardEnvironment(ctx context.Context, token string, env kassa.Environment) error {
	var n int64
	err := db.write(ctx, func(q queryer) error {
		res, err := q.ExecContext(ctx, `UPDATE dashboard_sessions SET environment = $1 WHERE token_hash = $2 AND expires_at > $3
			AND awaiting_code = $4`, string(env), kassa.HashSecret(token), micros(db.clock()), false)
		if err == nil {
			n, err = res.RowsAffected()
		}
		return err
	})
	if err != nil {
		return fmt.Errorf("store: switch dashboard environment: %w", err)
	}
	if n == 0 {
		return errSignedOut()
	}
	return nil
}

// DeleteDashboardSession ends the session of token, and every ended session
// (expired, or idle past kassa.DashboardIdleTimeout).
func (db *DB) DeleteDashboardSession(ctx context.Context, token string) error {
	now := db.clock()
	err := db.write(ctx, func(q queryer) error {
		_, err := q.ExecContext(ctx, `DELETE FROM dashboard_sessions WHERE token_hash = $1 OR expires_at <= $2
			OR (awaiting_code = $3 AND last_seen_at <= $4)`,
			kassa.HashSecret(token), micros(now), false, micros(now.Add(-kassa.DashboardIdleTimeout)))
		return err
	})
	if err != nil {
		return fmt.Errorf("store: delete dashboard session: %w", err)
	}
	return nil
}

// DashboardCodeAttempt counts a code about to be checked on the live half
// sign-in of token, before it is checked, in one conditional UPDATE: of any
// number of concurrent attempts at most kassa.DashboardCodeTries pass. last is
// true for the final one; one past it finds none left, deletes the half sign-in
// and reports ok false (void). No live half sign-in is signed out.
func (db *DB) DashboardCodeAttempt(ctx context.Context, token string) (ok, last bool, err error) {
	hash, now := kassa.HashSecret(token), micros(db.clock())
	var void bool
	err = db.tx(ctx, func(tx txq) error {
		var attempts int
		err := tx.QueryRowContext(ctx, `UPDATE dashboard_sessions SET code_failures = code_failures + 1
			WHERE token_hash = $1 AND awaiting_code = $2 AND expires_at > $3 AND code_failures < $4 RETURNING code_failures`,
			hash, true, now, kassa.DashboardCodeTries).Scan(&attempts)
		if err == nil {
			ok, last = true, attempts >= kassa.DashboardCodeTries
			return nil
		}
		if !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		res, err := tx.ExecContext(ctx, "DELETE FROM dashboard_sessions WHERE token_hash = $1 AND awaiting_code = $2", hash, true)
		if err != nil {
			return err
		}
		n, err := res.RowsAffected()
		void = n > 0
		return err
	})
	if err != nil {
		return false, false, fmt.Errorf("store: half sign-in code attempt: %w", err)
	}
	if !ok && !void {
		return false, false, errSignedOut()
	}
	return ok, last, nil
}

// ConsumeDashboardSignIn ends the live half sign-in of token and returns it, in
// one DELETE ... RETURNING: of a right code and a request that voided or used
// the half sign-in meanwhile, one wins; the other is signed out.
func (db *DB) ConsumeDashboardSignIn(ctx context.Context, token string) (*signin.DashboardSession, error) {
	var (
		s                          signin.DashboardSession
		env                        string
		created, expires, lastSeen int64
	)
	err := db.tx(ctx, func(tx txq) error {
		return tx.QueryRowContext(ctx, `DELETE FROM dashboard_sessions WHERE token_hash = $1 AND awaiting_code = $2
			AND expires_at > $3 RETURNING merchant_id, environment, created_at, expires_at, last_seen_at, credential_version`,
			kassa.HashSecret(token), true, micros(db.clock())).
			Scan(&s.MerchantID, &env, &created, &expires, &lastSeen, &s.CredentialVersion)
	})
	if errors.Is(err, sql.ErrNoRows) {
		return nil, errSignedOut()
	}
	if err != nil {
		return nil, fmt.Errorf("store: consume half sign-in: %w", err)
	}
	s.Environment, s.CreatedAt, s.ExpiresAt = kassa.Environment(env), fromMicros(created), fromMicros(expires)
	s.LastSeenAt = fromMicros(lastSeen)
	return &s, nil
}
