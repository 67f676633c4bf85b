package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/signin"
)

var _ signin.Throttle = (*DB)(nil)

// BeginSignIn counts an attempt on account as a failure, in one transaction with
// the check that the account is not held back: attempts sent together each see
// the ones before. Failures older than kassa.SignInForget are forgotten.
func (db *DB) BeginSignIn(ctx context.Context, account []byte) error {
	var held time.Duration
	err := db.signInFailure(ctx, account, func(now, heldUntil time.Time) bool {
		held = heldUntil.Sub(now)
		return held <= 0
	})
	if err != nil {
		return fmt.Errorf("store: begin sign-in: %w", err)
	}
	if held > 0 {
		return &signin.Held{RetryAfter: held}
	}
	return nil
}

// SignInFailed counts a failure on account, held back or not.
func (db *DB) SignInFailed(ctx context.Context, account []byte) error {
	if err := db.signInFailure(ctx, account, func(time.Time, time.Time) bool { return true }); err != nil {
		return fmt.Errorf("store: sign-in failed: %w", err)
	}
	return nil
}

// SignedIn forgets the account's failures.
func (db *DB) SignedIn(ctx context.Context, account []byte) error {
	err := db.write(ctx, func(q queryer) error {
		_, err := q.ExecContext(ctx, "DELETE FROM sign_in_failures WHERE account = $1", account)
		return err
	})
	if err != nil {
		return fmt.Errorf("store: signed in: %w", err)
	}
	return nil
}

// signInFailure adds one failure to account's row when count, given the time
// and until when the account is held, says so. The row is created first and then
// read locked (PostgreSQL), so concurrent failures on one account queue up; the
// hold after the new count is kassa.SignInHold's, never shorter than the one
// there was.
func (db *DB) signInFailure(ctx context.Context, account []byte, count func(now, heldUntil time.Time) bool) error {
	now := db.clock()
	return db.tx(ctx, func(tx txq) error {
		if _, err := tx.ExecContext(ctx, `INSERT INTO sign_in_failures (account, failures, held_until, updated_at)
			VALUES ($1, 0, 0, $2) ON CONFLICT (account) DO NOTHING`, account, micros(now)); err != nil {
			return err
		}
		var (
			failures          int
			heldUntil, update int64
		)
		err := tx.QueryRowContext(ctx, "SELECT failures, held_until, updated_at FROM sign_in_failures WHERE account = $1"+db.forUpdate(),
			account).Scan(&failures, &heldUntil, &update)
		if errors.Is(err, sql.ErrNoRows) {
			return errors.New("sign-in failures row vanished")
		}
		if err != nil {
			return err
		}
		if quiet := now.Sub(fromMicros(update)); quiet >= kassa.SignInForget ||
			(failures < kassa.SignInFreeFailures && quiet >= kassa.SignInFreeForget) {
			failures, heldUntil = 0, 0 // as if pruned (PruneSignInFailures)
		}
		if !count(now, fromMicros(heldUntil)) {
			return nil
		}
		failures++
		until := max(heldUntil, micros(now.Add(kassa.SignInHold(failures))))
		_, err = tx.ExecContext(ctx, "UPDATE sign_in_failures SET failures = $1, held_until = $2, updated_at = $3 WHERE account = $4",
			failures, until, micros(now), account)
		return err
	})
}

// PruneSignInFailures deletes the rows of accounts no longer held whose last
// failure is kassa.SignInForget old, and those of fewer than
// kassa.SignInFreeFailures failures (which hold nothing) kassa.SignInFreeForget
// old: BeginSignIn treats them as no row.
func (db *DB) PruneSignInFailures(ctx context.Context) (int64, error) {
	now := db.clock()
	var n int64
	err := db.write(ctx, func(q queryer) error {
		res, err := q.ExecContext(ctx, `DELETE FROM sign_in_failures WHERE held_until <= $1 AND (updated_at <= $2
			OR (failures < $3 AND updated_at <= $4))`, micros(now), micros(now.Add(-kassa.SignInForget)),
			kassa.SignInFreeFailures, micros(now.Add(-kassa.SignInFreeForget)))
		if err == nil {
			n, err = res.RowsAffected()
		}
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("store: prune sign-in failures: %w", err)
	}
	return n, nil
}
