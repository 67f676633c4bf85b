package kassa

import (
	"context"
	"strconv"
	"strings"
	"time"
)

// Sign-in guessing limits (issue 36): the failures an account may have before
// each further attempt is held back, the first hold, which doubles per failure up
// to the cap, and how long an account's failures are remembered without a new one.
const (
	SignInFreeFailures = 5
	SignInHoldBase     = 30 * time.Second
	SignInHoldMax      = 15 * time.Minute
	SignInForget       = 24 * time.Hour
)

// SignInFreeForget is how long an account's failures are remembered while they
// are fewer than SignInFreeFailures (no hold yet): such rows are pruned after it,
// so a typo'd or sprayed email does not keep a row for SignInForget. It is not
// the longest hold (SignInHoldMax) but SignInFreeFailures-1 of them: an account
// forgotten this soon still gives no more than one guess per SignInHoldMax, the
// rate of one held at the cap.
const SignInFreeForget = (SignInFreeFailures - 1) * SignInHoldMax

// DashboardCodeTries is how many codes a dashboard half sign-in accepts: the
// last wrong one voids it, and the sign-in starts over with the password.
const DashboardCodeTries = 5

// SignInHold returns how long an account is held back after its failures-th
// failure in a row: nothing for the first SignInFreeFailures-1, then
// SignInHoldBase, doubling per failure, at most SignInHoldMax.
func SignInHold(failures int) time.Duration {
	if failures < SignInFreeFailures {
		return 0
	}
	d := SignInHoldBase
	for i := SignInFreeFailures; i < failures && d < SignInHoldMax; i++ {
		d *= 2
	}
	return min(d, SignInHoldMax)
}

// SignInAccount is the key an account's failures are counted under: the SHA-256
// of the email as typed, lower-cased, whether a merchant has it or not, so the
// count (and its answers) are the same for unknown emails.
func SignInAccount(email string) []byte {
	return HashSecret(NormalizeEmail(email))
}

// NormalizeEmail is how emails are stored, looked up and counted: trimmed and
// lower-cased.
func NormalizeEmail(email string) string { return strings.ToLower(strings.TrimSpace(email)) }

// SignInHeld is the answer to a sign-in attempt on an account held back after
// too many failures: a KindRateLimited too_many_attempts error that says when to
// try again.
type SignInHeld struct{ RetryAfter time.Duration }

// RetrySeconds is RetryAfter in whole seconds, at least 1.
func (e *SignInHeld) RetrySeconds() int {
	return max(int((e.RetryAfter+time.Second-1)/time.Second), 1)
}

func (e *SignInHeld) Error() string { return e.Unwrap().Error() }

// Unwrap is the domain error of the hold, so AsError finds its kind and code.
func (e *SignInHeld) Unwrap() error {
	return &Error{Kind: KindRateLimited, Code: "too_many_attempts",
		Message: "Too many failed sign-in attempts for this account; retry after " +
			strconv.Itoa(e.RetrySeconds()) + " seconds."}
}

// SignInThrottle counts failed sign-ins per account (SignInAccount) in the store,
// so the limit holds across instances.
type SignInThrottle interface {
	// BeginSignIn counts an attempt on account as a failure before it is checked
	// (so attempts sent together count too), unless the account is held back:
	// then *SignInHeld and nothing is counted. SignedIn undoes the count.
	BeginSignIn(ctx context.Context, account []byte) error
	// SignInFailed counts a failure that had no BeginSignIn of its own (a wrong
	// code on a dashboard half sign-in).
	SignInFailed(ctx context.Context, account []byte) error
	// SignedIn forgets the account's failures after a complete sign-in.
	SignedIn(ctx context.Context, account []byte) error
}

// ErrSecondFactorRequired is the answer to a sign-in or re-authentication
// without the code of a merchant whose two-step sign-in is on.
func ErrSecondFactorRequired(kind ErrorKind) error {
	return &Error{Kind: kind, Code: "second_factor_required", Param: "code",
		Message: "Two-step sign-in is on for this account: enter the current code from your authenticator app."}
}
