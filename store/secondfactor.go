package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/secondfactor"
)

var _ secondfactor.Store = (*DB)(nil)

// TOTPSecret returns the merchant's second-factor secret, "" when it is off. It
// is sealed at rest, as webhook secrets are (secrets.go); one that does not open is
// an error, never "off".
func (db *DB) TOTPSecret(ctx context.Context, merchantID int64) (string, error) {
	var secret sql.Null[string]
	err := db.r.QueryRowContext(ctx, "SELECT totp_secret FROM merchants WHERE id = $1", merchantID).Scan(&secret)
	if errors.Is(err, sql.ErrNoRows) {
		return "", kassa.NotFound("merchant")
	}
	if err != nil {
		return "", fmt.Errorf("store: second factor: %w", err)
	}
	plain, err := db.open(secret.V, "merchants", "totp_secret", merchantID)
	if err != nil {
		return "", fmt.Errorf("store: second factor: %w", err)
	}
	return plain, nil
}

// EnableTOTP turns the factor on with secret, the proving code's step already
// used, and bumps the merchant's credential version (which also ends its
// sessions, with the secrets being enrolled on them), in one transaction. A
// factor already on is a conflict: turn it off first.
func (db *DB) EnableTOTP(ctx context.Context, merchantID int64, secret string, step int64) error {
	if secret == "" {
		return kassa.Invalidf("code", "invalid_secret", "Set up the second factor first.")
	}
	sealedSecret, err := db.seal(secret, "merchants", "totp_secret", merchantID)
	if err != nil {
		return fmt.Errorf("store: enable second factor: %w", err)
	}
	return db.tx(ctx, func(tx txq) error {
		res, err := tx.ExecContext(ctx, `UPDATE merchants SET totp_secret = $1, totp_last_step = $2
			WHERE id = $3 AND totp_secret IS NULL`, sealedSecret, step, merchantID)
		if err != nil {
			return fmt.Errorf("store: enable second factor: %w", err)
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			return &kassa.Error{Kind: kassa.KindConflict, Code: "second_factor_on",
				Message: "Two-step sign-in is already on; turn it off first to set it up again."}
		}
		return bumpCredentials(ctx, tx, merchantID)
	})
}

// DisableTOTP turns the factor off, forgets its secret and bumps the merchant's
// credential version, in one transaction.
func (db *DB) DisableTOTP(ctx context.Context, merchantID int64) error {
	err := db.tx(ctx, func(tx txq) error {
		if _, err := tx.ExecContext(ctx, "UPDATE merchants SET totp_secret = NULL, totp_last_step = 0 WHERE id = $1", merchantID); err != nil {
			return err
		}
		return bumpCredentials(ctx, tx, merchantID)
	})
	if err != nil {
		return fmt.Errorf("store: disable second factor: %w", err)
	}
	return nil
}

// UseTOTPStep moves the merchant's last accepted step forward to step in one
// conditional UPDATE, so two requests with the same code cannot both pass.
func (db *DB) UseTOTPStep(ctx context.Context, merchantID int64, step int64) error {
	var n int64
	err := db.write(ctx, func(q queryer) error {
		res, err := q.ExecContext(ctx, `UPDATE merchants SET totp_last_step = $1
			WHERE id = $2 AND totp_secret IS NOT NULL AND totp_last_step < $1`, step, merchantID)
		if err == nil {
			n, err = res.RowsAffected()
		}
		return err
	})
	if err != nil {
		return fmt.Errorf("store: use second-factor code: %w", err)
	}
	if n == 0 {
		return kassa.ErrInvalidCode()
	}
	return nil
}

// SetDashboardTOTPPending keeps secret (or, "", none) on the live signed-in
// session of token while its merchant enrols it.
func (db *DB) SetDashboardTOTPPending(ctx context.Context, token, secret string) error {
	hash := kassa.HashSecret(token)
	sealedSecret, err := db.seal(secret, "dashboard_sessions", "totp_pending", hash)
	if err != nil {
		return fmt.Errorf("store: second factor being enrolled: %w", err)
	}
	var n int64
	err = db.write(ctx, func(q queryer) error {
		res, err := q.ExecContext(ctx, `UPDATE dashboard_sessions SET totp_pending = $1
			WHERE token_hash = $2 AND expires_at > $3 AND awaiting_code = $4`,
			sql.Null[string]{V: sealedSecret, Valid: secret != ""}, hash, micros(db.clock()), false)
		if err == nil {
			n, err = res.RowsAffected()
		}
		return err
	})
	if err != nil {
		return fmt.Errorf("store: second factor being enrolled: %w", err)
	}
	if n == 0 {
		return errSignedOut()
	}
	return nil
}

// DashboardTOTPPending returns the secret being enrolled on the live signed-in
// session of token; "" when none.
func (db *DB) DashboardTOTPPending(ctx context.Context, token string) (string, error) {
	var secret sql.Null[string]
	hash := kassa.HashSecret(token)
	err := db.r.QueryRowContext(ctx, `SELECT totp_pending FROM dashboard_sessions
		WHERE token_hash = $1 AND expires_at > $2 AND awaiting_code = $3`, hash, micros(db.clock()), false).Scan(&secret)
	if errors.Is(err, sql.ErrNoRows) {
		return "", errSignedOut()
	}
	if err != nil {
		return "", fmt.Errorf("store: second factor being enrolled: %w", err)
	}
	plain, err := db.open(secret.V, "dashboard_sessions", "totp_pending", hash)
	if err != nil {
		return "", fmt.Errorf("store: second factor being enrolled: %w", err)
	}
	return plain, nil
}
