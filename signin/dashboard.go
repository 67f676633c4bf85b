package signin

import (
	"context"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/secondfactor"
)

// Step is where a dashboard sign-in stands after its password: Token is a
// session's, or, when AwaitsCode, a half sign-in's that waits for the code
// (kassa.DashboardCodeTTL) and signs nothing else in.
type Step struct {
	Token      string
	AwaitsCode bool
}

// Password is the dashboard's first step: the password of email checked as
// Login checks it. With two-step sign-in off it is the whole sign-in and a
// session starts (in devnet); with it on, a half sign-in starts instead and the
// attempt stays counted as a failure until Code succeeds. Either is kept under
// the credential version the password check observed, so a change meanwhile
// ends it.
func (s *Service) Password(ctx context.Context, email, password string) (Step, error) {
	account := kassa.SignInAccount(email)
	if err := s.merchants.BeginSignIn(ctx, account); err != nil {
		return Step{}, err
	}
	m, err := s.merchants.Login(ctx, email, password)
	if err != nil {
		return Step{}, err
	}
	secret, err := s.merchants.TOTPSecret(ctx, m.ID)
	if err != nil {
		return Step{}, err
	}
	token := kassa.NewDashboardToken()
	if secret != "" {
		_, err := s.sessions.CreateDashboardSignIn(ctx, token, m.ID, m.CredentialVersion, kassa.Devnet)
		return Step{Token: token, AwaitsCode: true}, err
	}
	if err := s.merchants.SignedIn(ctx, account); err != nil {
		return Step{}, err
	}
	_, err = s.sessions.CreateDashboardSession(ctx, token, m.ID, m.CredentialVersion, kassa.Devnet)
	return Step{Token: token}, err
}

// AwaitingCode reports, by a nil error, that token is a live half sign-in;
// anything else is KindUnauthenticated (sign in again).
func (s *Service) AwaitingCode(ctx context.Context, token string) error {
	if token == "" {
		return ErrSignedOut()
	}
	_, err := s.sessions.DashboardSignIn(ctx, token)
	return err
}

// ErrSignedOut is the answer to a dashboard step without its session or half
// sign-in.
func ErrSignedOut() error {
	return kassa.Errorf(kassa.KindUnauthenticated, "signed_out", "Sign in first.")
}

// Code is the dashboard's second step on the half sign-in of token: a right
// code, used once, ends it and starts a session under a new token, which it
// returns, of the credential version and environment of the half sign-in. Each
// code is counted on the half sign-in before it is checked, so concurrent
// requests check at most kassa.DashboardCodeTries codes; a wrong one also counts
// as a failure of the account, and the last one wrong voids the half sign-in
// (KindUnauthenticated sign_in_void; sign in again), as does any code past it. A
// right code on a half sign-in another request ended meanwhile is signed out. It
// is not held back by the account's delay: getting a half sign-in took the
// password, and it accepts few codes.
func (s *Service) Code(ctx context.Context, token, code string) (string, error) {
	if token == "" {
		return "", ErrSignedOut()
	}
	half, err := s.sessions.DashboardSignIn(ctx, token)
	if err != nil {
		return "", err
	}
	m, err := s.merchants.Merchant(ctx, half.MerchantID)
	if err != nil {
		return "", err
	}
	ok, last, err := s.sessions.DashboardCodeAttempt(ctx, token)
	if err != nil {
		return "", err
	}
	if !ok {
		return "", ErrSignInVoid()
	}
	account := kassa.SignInAccount(m.Email)
	err = secondfactor.Verify(ctx, s.merchants, m.ID, code, s.now())
	if kassa.ErrorCode(err) == "invalid_code" {
		if err := s.merchants.SignInFailed(ctx, account); err != nil {
			return "", err
		}
		if last {
			if err := s.sessions.DeleteDashboardSession(ctx, token); err != nil {
				return "", err
			}
			return "", ErrSignInVoid()
		}
		return "", err
	}
	if err != nil {
		return "", err
	}
	if half, err = s.sessions.ConsumeDashboardSignIn(ctx, token); err != nil {
		return "", err
	}
	if err := s.merchants.SignedIn(ctx, account); err != nil {
		return "", err
	}
	full := kassa.NewDashboardToken()
	_, err = s.sessions.CreateDashboardSession(ctx, full, half.MerchantID, half.CredentialVersion, half.Environment)
	return full, err
}

// ErrSignInVoid is the answer to the last code a half sign-in accepts, wrong.
func ErrSignInVoid() error {
	return kassa.Errorf(kassa.KindUnauthenticated, "sign_in_void",
		"Too many wrong codes: sign in again with your password.")
}
