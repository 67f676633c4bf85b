package secondfactor

import "context"

// Store keeps merchants' optional TOTP second factor for dashboard
// sign-in. The secret is a credential: it leaves the store only to check a code,
// and is never logged or shown after enrolment.
type Store interface {
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
