package kassa

import (
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

// ErrSecondFactorRequired is the answer to a sign-in or re-authentication
// without the code of a merchant whose two-step sign-in is on.
func ErrSecondFactorRequired(kind ErrorKind) error {
	return &Error{Kind: kind, Code: "second_factor_required", Param: "code",
		Message: "Two-step sign-in is on for this account: enter the current code from your authenticator app."}
}
