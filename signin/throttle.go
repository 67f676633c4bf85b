package signin

import (
	"context"
	"strconv"
	"time"

	"github.com/kassapay/kassa"
)

// Held is the answer to a sign-in attempt on an account held back after
// too many failures: a KindRateLimited too_many_attempts error that says when to
// try again.
type Held struct{ RetryAfter time.Duration }

// RetrySeconds is RetryAfter in whole seconds, at least 1.
func (e *Held) RetrySeconds() int {
	return max(int((e.RetryAfter+time.Second-1)/time.Second), 1)
}

func (e *Held) Error() string { return e.Unwrap().Error() }

// Unwrap is the domain error of the hold, so AsError finds its kind and code.
func (e *Held) Unwrap() error {
	return &kassa.Error{Kind: kassa.KindRateLimited, Code: "too_many_attempts",
		Message: "Too many failed sign-in attempts for this account; retry after " +
			strconv.Itoa(e.RetrySeconds()) + " seconds."}
}

// Throttle counts failed sign-ins per account (kassa.SignInAccount) in the store,
// so the limit holds across instances.
type Throttle interface {
	// BeginSignIn counts an attempt on account as a failure before it is checked
	// (so attempts sent together count too), unless the account is held back:
	// then *Held and nothing is counted. SignedIn undoes the count.
	BeginSignIn(ctx context.Context, account []byte) error
	// SignInFailed counts a failure that had no BeginSignIn of its own (a wrong
	// code on a dashboard half sign-in).
	SignInFailed(ctx context.Context, account []byte) error
	// SignedIn forgets the account's failures after a complete sign-in.
	SignedIn(ctx context.Context, account []byte) error
}
