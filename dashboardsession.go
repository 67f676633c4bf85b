package kassa

import (
	"context"
	"strconv"
	"time"
)

// DashboardSessionTTL is how long a dashboard sign-in lasts without signing in again.
const DashboardSessionTTL = 12 * time.Hour

// DashboardIdleTimeout ends a dashboard session that made no request for this
// long, within its DashboardSessionTTL: a browser left signed in unattended.
const DashboardIdleTimeout = 30 * time.Minute

// DashboardTouchEvery is how stale a session's recorded last use may get: a
// request writes it only when it is older than this, so a busy session costs one
// store write a minute, not one a request, and its idle time is counted at most
// this much early.
const DashboardTouchEvery = time.Minute

// DashboardSession is a merchant signed in to the dashboard in one browser. The
// browser holds a random token in an HttpOnly cookie; only its hash is stored,
// so a copy of the database signs nobody in.
type DashboardSession struct {
	MerchantID  int64
	Environment Environment // the environment switch: which money the pages show
	CreatedAt   time.Time
	ExpiresAt   time.Time
	LastSeenAt  time.Time // its last request, as last recorded (DashboardTouchEvery)
	// CredentialVersion is the merchant's credential version the sign-in
	// observed with the password; a bump ends the session.
	CredentialVersion int64
}

// Idle reports whether the session has gone DashboardIdleTimeout without a
// request at now: it has ended, whatever its ExpiresAt.
func (s *DashboardSession) Idle(now time.Time) bool {
	return now.Sub(s.LastSeenAt) >= DashboardIdleTimeout
}

// NeedsTouch reports whether a request at now should record itself as the
// session's last use (DashboardTouchEvery).
func (s *DashboardSession) NeedsTouch(now time.Time) bool {
	return now.Sub(s.LastSeenAt) >= DashboardTouchEvery
}

// ErrDashboardIdle is the answer for a session ended by DashboardIdleTimeout;
// the sign-in page says why.
func ErrDashboardIdle() error {
	return &Error{Kind: KindUnauthenticated, Code: "session_idle",
		Message: "You were signed out after " + IdleTimeoutText() + " without activity; sign in again."}
}

// IdleTimeoutText is DashboardIdleTimeout in words ("30 minutes"), for the
// messages that tell a merchant why it was signed out.
func IdleTimeoutText() string {
	if m := int(DashboardIdleTimeout / time.Minute); m > 1 && DashboardIdleTimeout%time.Minute == 0 {
		return strconv.Itoa(m) + " minutes"
	}
	return DashboardIdleTimeout.String()
}

// Principal is who the session acts as: the merchant, in its environment, with
// the merchant scope of a dashboard login.
func (s *DashboardSession) Principal() Principal {
	return Principal{MerchantID: s.MerchantID, Environment: s.Environment, Scope: ScopeMerchant}
}

// NewDashboardToken returns a fresh dashboard session token (256 random bits).
func NewDashboardToken() string { return "ds_" + RandomBase32(32) }

// DashboardCodeTTL is how long a half sign-in (the password was right, the
// second factor's code is awaited) waits for its code.
const DashboardCodeTTL = 5 * time.Minute

// ErrInvalidCode is the answer to a wrong, stale or already used second-factor code.
func ErrInvalidCode() error {
	return &Error{Kind: KindUnauthenticated, Code: "invalid_code", Param: "code",
		Message: "The code is incorrect or was already used; enter the current code from your app."}
}

// SecondFactorStore keeps merchants' optional TOTP second factor for dashboard
// sign-in. The secret is a credential: it leaves the store only to check a code,
// and is never logged or shown after enrolment.
type SecondFactorStore interface {
	// TOTPSecret returns the merchant's second-factor secret; "" when the factor
	// is off.
	TOTPSecret(ctx context.Context, merchantID int64) (string, error)
	// EnableTOTP turns the factor on with secret; step is the time step of the
	// code that proved it, so that code cannot sign in afterwards. It bumps the
	// merchant's credential version, as DisableTOTP does.
	EnableTOTP(ctx context.Context, merchantID int64, secret string, step int64) error
	// DisableTOTP turns the factor off.
	DisableTOTP(ctx context.Context, merchantID int64) error
	// UseTOTPStep records that a code of time step was accepted, once: a step at
	// or before the last one accepted (a replayed code), or a merchant without
	// the factor, is KindUnauthenticated.
	UseTOTPStep(ctx context.Context, merchantID int64, step int64) error
}
