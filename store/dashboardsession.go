package store

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"

	"kassa"
)

var _ kassa.DashboardSessionStore = (*DB)(nil)

// errSignedOut is the answer for an unknown or ended session.
func errSignedOut() error {
	return kassa.Errorf(kassa.KindUnauthenticated, "session_ended", "Your session has ended; sign in again.")
}

// CreateDashboardSession stores a session for token, hashed.
func (db *DB) CreateDashboardSession(ctx context.Context, token string, merchantID int64, env kassa.Environment) (*kassa.DashboardSession, error) {
	return db.createDashboardSession(ctx, token, merchantID, env, false)
}

// CreateDashboardSignIn stores a half sign-in for token, hashed, that waits
// kassa.DashboardCodeTTL for its second-factor code.
func (db *DB) CreateDashboardSignIn(ctx context.Context, token string, merchantID int64, env kassa.Environment) (*kassa.DashboardSession, error) {
	return db.createDashboardSession(ctx, token, merchantID, env, true)
}

// DashboardSignIn returns the live half sign-in of token.
func (db *DB) DashboardSignIn(ctx context.Context, token string) (*kassa.DashboardSession, error) {
	return db.dashboardSession(ctx, token, true)
}

func (db *DB) createDashboardSession(ctx context.Context, token string, merchantID int64, env kassa.Environment, awaiting bool) (*kassa.DashboardSession, error) {
	now, ttl := db.clock(), kassa.DashboardSessionTTL
	if awaiting {
		ttl = kassa.DashboardCodeTTL
	}
	s := &kassa.DashboardSession{MerchantID: merchantID, Environment: env, CreatedAt: now, ExpiresAt: now.Add(ttl)}
	err := db.write(ctx, func(q queryer) error {
		// The session records the merchant's credential version: a bump ends it.
		res, err := q.ExecContext(ctx, `INSERT INTO dashboard_sessions (token_hash, merchant_id, environment, created_at, expires_at,
			awaiting_code, credential_version)
			SELECT $1, id, $2, $3, $4, $5, credential_version FROM merchants WHERE id = $6`,
			kassa.HashSecret(token), string(env), micros(now), micros(s.ExpiresAt), awaiting, merchantID)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			return cmp.Or(err, error(kassa.NotFound("merchant")))
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("store: create dashboard session: %w", err)
	}
	return s, nil
}

// DashboardSession returns the live session of token.
func (db *DB) DashboardSession(ctx context.Context, token string) (*kassa.DashboardSession, error) {
	return db.dashboardSession(ctx, token, false)
}

// dashboardSession returns the live session of token: a signed-in one, or a
// half sign-in when awaiting; one of an older credential version is ended.
func (db *DB) dashboardSession(ctx context.Context, token string, awaiting bool) (*kassa.DashboardSession, error) {
	var (
		s                kassa.DashboardSession
		env              string
		created, expires int64
	)
	err := db.r.QueryRowContext(ctx, `SELECT s.merchant_id, s.environment, s.created_at, s.expires_at
		FROM dashboard_sessions s JOIN merchants m ON m.id = s.merchant_id AND m.credential_version = s.credential_version
		WHERE s.token_hash = $1 AND s.expires_at > $2 AND s.awaiting_code = $3`, kassa.HashSecret(token), micros(db.clock()), awaiting).
		Scan(&s.MerchantID, &env, &created, &expires)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, errSignedOut()
	}
	if err != nil {
		return nil, fmt.Errorf("store: dashboard session: %w", err)
	}
	s.Environment, s.CreatedAt, s.ExpiresAt = kassa.Environment(env), fromMicros(created), fromMicros(expires)
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

// DeleteDashboardSession ends the session of token, and every ended session.
func (db *DB) DeleteDashboardSession(ctx context.Context, token string) error {
	err := db.write(ctx, func(q queryer) error {
		_, err := q.ExecContext(ctx, `DELETE FROM dashboard_sessions WHERE token_hash = $1 OR expires_at <= $2`,
			kassa.HashSecret(token), micros(db.clock()))
		return err
	})
	if err != nil {
		return fmt.Errorf("store: delete dashboard session: %w", err)
	}
	return nil
}

// DashboardCodeFailed counts a wrong code on the live half sign-in of token; the
// kassa.DashboardCodeTries-th deletes it (void).
func (db *DB) DashboardCodeFailed(ctx context.Context, token string) (void bool, err error) {
	hash := kassa.HashSecret(token)
	err = db.tx(ctx, func(tx txq) error {
		var failures int
		err := tx.QueryRowContext(ctx, `UPDATE dashboard_sessions SET code_failures = code_failures + 1
			WHERE token_hash = $1 AND awaiting_code = $2 RETURNING code_failures`, hash, true).Scan(&failures)
		if errors.Is(err, sql.ErrNoRows) {
			return errSignedOut()
		}
		if err != nil || failures < kassa.DashboardCodeTries {
			return err
		}
		void = true
		_, err = tx.ExecContext(ctx, "DELETE FROM dashboard_sessions WHERE token_hash = $1", hash)
		return err
	})
	if err != nil {
		return false, fmt.Errorf("store: half sign-in code failed: %w", err)
	}
	return void, nil
}
