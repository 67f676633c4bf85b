package signin

import (
	"context"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/secondfactor"
)

// DashboardSessionStore keeps dashboard sessions server-side, the half sign-ins
// that wait for a second-factor code, and the second factor itself.
type DashboardSessionStore interface {
	secondfactor.Store
	// CreateDashboardSession stores a session of merchantID for token, which the
	// store keeps only hashed, ending DashboardSessionTTL from now, under the
	// credential version the sign-in observed (Merchant.CredentialVersion from
	// Login); KindUnauthenticated when the merchant's version is no longer it.
	CreateDashboardSession(ctx context.Context, token string, merchantID, credentialVersion int64, env kassa.Environment) (*DashboardSession, error)
	// DashboardSession returns the session of token; an unknown or ended one is
	// KindUnauthenticated, ErrDashboardIdle for one ended by DashboardIdleTimeout.
	// It writes nothing.
	DashboardSession(ctx context.Context, token string) (*DashboardSession, error)
	// TouchDashboardSession records now as the live session's last use.
	TouchDashboardSession(ctx context.Context, token string) error
	// SetDashboardEnvironment switches the session's environment.
	SetDashboardEnvironment(ctx context.Context, token string, env kassa.Environment) error
	// DeleteDashboardSession ends the session (sign out), or a half sign-in; an
	// unknown one is no error.
	DeleteDashboardSession(ctx context.Context, token string) error
	// CreateDashboardSignIn stores a half sign-in of merchantID for token: it ends
	// DashboardCodeTTL from now and signs nobody in (DashboardSession does not
	// find it); only DashboardSignIn does.
	// The credential version is as for CreateDashboardSession.
	CreateDashboardSignIn(ctx context.Context, token string, merchantID, credentialVersion int64, env kassa.Environment) (*DashboardSession, error)
	// DashboardSignIn returns the live half sign-in of token; anything else is
	// KindUnauthenticated.
	DashboardSignIn(ctx context.Context, token string) (*DashboardSession, error)
	// SetDashboardTOTPPending keeps a second-factor secret being enrolled on the
	// live session of token, server-side; "" drops it.
	SetDashboardTOTPPending(ctx context.Context, token, secret string) error
	// DashboardTOTPPending returns the secret being enrolled; "" when none.
	DashboardTOTPPending(ctx context.Context, token string) (string, error)
	// DashboardCodeAttempt counts a code on the live half sign-in of token before
	// it is checked, atomically: at most DashboardCodeTries attempts pass (ok),
	// last for the final one; one more deletes it and reports !ok (void).
	DashboardCodeAttempt(ctx context.Context, token string) (ok, last bool, err error)
	// ConsumeDashboardSignIn ends the live half sign-in of token and returns it,
	// atomically: KindUnauthenticated when another request ended it first.
	ConsumeDashboardSignIn(ctx context.Context, token string) (*DashboardSession, error)
}
