package signin

import (
	"time"

	"github.com/kassapay/kassa"
)

// DashboardSession is a merchant signed in to the dashboard in one browser. The
// browser holds a random token in an HttpOnly cookie; only its hash is stored,
// so a copy of the database signs nobody in.
type DashboardSession struct {
	MerchantID  int64
	Environment kassa.Environment // the environment switch: which money the pages show
	CreatedAt   time.Time
	ExpiresAt   time.Time
	LastSeenAt  time.Time // its last request, as last recorded (kassa.DashboardTouchEvery)
	// CredentialVersion is the merchant's credential version the sign-in
	// observed with the password; a bump ends the session.
	CredentialVersion int64
}

// Idle reports whether the session has gone DashboardIdleTimeout without a
// request at now: it has ended, whatever its ExpiresAt.
func (s *DashboardSession) Idle(now time.Time) bool {
	return now.Sub(s.LastSeenAt) >= kassa.DashboardIdleTimeout
}

// NeedsTouch reports whether a request at now should record itself as the
// session's last use (kassa.DashboardTouchEvery).
func (s *DashboardSession) NeedsTouch(now time.Time) bool {
	return now.Sub(s.LastSeenAt) >= kassa.DashboardTouchEvery
}

// Principal is who the session acts as: the merchant, in its environment, with
// the merchant scope of a dashboard login.
func (s *DashboardSession) Principal() kassa.Principal {
	return kassa.Principal{MerchantID: s.MerchantID, Environment: s.Environment, Scope: kassa.ScopeMerchant}
}
