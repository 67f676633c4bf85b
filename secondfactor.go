package kassa

import (
	"context"
	"time"
)

// DashboardCodeTTL is how long a half sign-in (the password was right, the
// second factor's code is awaited) waits for its code.
const DashboardCodeTTL = 5 * time.Minute

// SecondFactorStore keeps merchants' optional TOTP second factor for dashboard
// sign-in. The secret is a credential: it leaves the store only to check a code,
// and is never logged or shown after enrolment.
type SecondFactorStore interface {
	// TOTPSecret returns the merchant's second-factor secret; "" when the factor
	// is off.
	TOTPSecret(ctx context.Context, merchantID int64) (string, error)
	// EnableTOTP turns the factor on with secret; step is the time step of the
	// code that proved it, so that code cannot sign in afterwards.
	EnableTOTP(ctx context.Context, merchantID int64, secret string, step int64) error
	// DisableTOTP turns the factor off.
	DisableTOTP(ctx context.Context, merchantID int64) error
	// UseTOTPStep records that a code of time step was accepted, once: a step at
	// or before the last one accepted (a replayed code), or a merchant without
	// the factor, is KindUnauthenticated.
	UseTOTPStep(ctx context.Context, merchantID int64, step int64) error
}

// ErrInvalidCode is the answer to a wrong, stale or already used second-factor code.
func ErrInvalidCode() error {
	return &Error{Kind: KindUnauthenticated, Code: "invalid_code", Param: "code",
		Message: "The code is incorrect or was already used; enter the current code from your app."}
}
