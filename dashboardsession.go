package kassa

import (
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
