// Package signin is the one place a merchant proves who it is: the API's login,
// the dashboard's two steps, and the re-authentication a sensitive change needs
// (the password again, and the code when two-step sign-in is on). The API and the
// dashboard both call it, so they share one rule for each: failed attempts are
// counted per account in the store (Throttle) and an account past
// kassa.SignInFreeFailures is held back with a doubling delay; a half sign-in
// accepts kassa.DashboardCodeTries codes.
package signin

import (
	"context"
	"time"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/secondfactor"
)

// Merchants is what the service needs of the store: the accounts, their
// second factor and the count of failed sign-ins.
type Merchants interface {
	kassa.MerchantService
	secondfactor.Store
	Throttle
}

// Service checks passwords and codes for both surfaces.
type Service struct {
	merchants Merchants
	sessions  DashboardSessionStore // half sign-ins; nil without a dashboard
	now       func() time.Time
}

// New returns the service over merchants (accounts, second factor, throttle)
// and sessions (the dashboard's half sign-ins; nil when there is no dashboard).
func New(merchants Merchants, sessions DashboardSessionStore, now func() time.Time) *Service {
	if now == nil {
		now = time.Now
	}
	return &Service{merchants: merchants, sessions: sessions, now: now}
}

// Proof is what a caller sends to prove it is the merchant: the password and,
// when two-step sign-in is on, the current code. "" is not sent.
type Proof struct {
	Password, Code string
}

// Login is the API's sign-in, in one request: the password and, when two-step
// sign-in is on, the code. A wrong password is KindUnauthenticated
// invalid_credentials; a missing code second_factor_required, a wrong or replayed
// one invalid_code (both param code, and both only once the password was right);
// an account held back *Held. Every answer but success counts as a
// failure of the account, whether a merchant has the email or not.
func (s *Service) Login(ctx context.Context, email string, p Proof) (*kassa.Merchant, error) {
	account := kassa.SignInAccount(email)
	if err := s.merchants.BeginSignIn(ctx, account); err != nil {
		return nil, err
	}
	m, err := s.merchants.Login(ctx, email, p.Password)
	if err != nil {
		return nil, err
	}
	if err := s.secondFactor(ctx, m.ID, p.Code, kassa.KindUnauthenticated); err != nil {
		return nil, err
	}
	return m, s.merchants.SignedIn(ctx, account)
}

// Password is the dashboard's first step. With two-step sign-in off it is the
// whole sign-in; with it on, needsCode is true and the attempt stays counted as a
// failure until Code succeeds.
func (s *Service) Password(ctx context.Context, email, password string) (m *kassa.Merchant, needsCode bool, err error) {
	account := kassa.SignInAccount(email)
	if err := s.merchants.BeginSignIn(ctx, account); err != nil {
		return nil, false, err
	}
	if m, err = s.merchants.Login(ctx, email, password); err != nil {
		return nil, false, err
	}
	secret, err := s.merchants.TOTPSecret(ctx, m.ID)
	if err != nil || secret != "" {
		return m, err == nil, err
	}
	return m, false, s.merchants.SignedIn(ctx, account)
}

// Code is the dashboard's second step on the half sign-in of token: a right
// code, used once, ends it and returns it (the caller turns it into a session
// under its credential version). Each code is counted on the half sign-in before
// it is checked, so concurrent requests check at most kassa.DashboardCodeTries
// codes; a wrong one also counts as a failure of the account, and the last one
// wrong voids the half sign-in (KindUnauthenticated sign_in_void; sign in again),
// as does any code past it. A right code on a half sign-in another request ended
// meanwhile is signed out. It is not held back by the account's delay: getting a
// half sign-in took the password, and it accepts few codes.
func (s *Service) Code(ctx context.Context, token, code string) (*DashboardSession, error) {
	half, err := s.sessions.DashboardSignIn(ctx, token)
	if err != nil {
		return nil, err
	}
	m, err := s.merchants.Merchant(ctx, half.MerchantID)
	if err != nil {
		return nil, err
	}
	ok, last, err := s.sessions.DashboardCodeAttempt(ctx, token)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, ErrSignInVoid()
	}
	account := kassa.SignInAccount(m.Email)
	err = secondfactor.Verify(ctx, s.merchants, m.ID, code, s.now())
	if kassa.ErrorCode(err) == "invalid_code" {
		if err := s.merchants.SignInFailed(ctx, account); err != nil {
			return nil, err
		}
		if last {
			if err := s.sessions.DeleteDashboardSession(ctx, token); err != nil {
				return nil, err
			}
			return nil, ErrSignInVoid()
		}
		return nil, err
	}
	if err != nil {
		return nil, err
	}
	if half, err = s.sessions.ConsumeDashboardSignIn(ctx, token); err != nil {
		return nil, err
	}
	return half, s.merchants.SignedIn(ctx, account)
}

// ErrSignInVoid is the answer to the last code a half sign-in accepts, wrong.
func ErrSignInVoid() error {
	return kassa.Errorf(kassa.KindUnauthenticated, "sign_in_void",
		"Too many wrong codes: sign in again with your password.")
}

// secondFactor checks code when the merchant's two-step sign-in is on: missing
// is second_factor_required, wrong or replayed invalid_code, both of kind.
func (s *Service) secondFactor(ctx context.Context, merchantID int64, code string, kind kassa.ErrorKind) error {
	secret, err := s.merchants.TOTPSecret(ctx, merchantID)
	if err != nil || secret == "" {
		return err
	}
	if code == "" {
		return kassa.ErrSecondFactorRequired(kind)
	}
	err = secondfactor.Verify(ctx, s.merchants, merchantID, code, s.now())
	if e := kassa.AsError(err); err != nil && e.Code == "invalid_code" && kind != e.Kind {
		return &kassa.Error{Kind: kind, Code: e.Code, Param: e.Param, Message: e.Message}
	}
	return err
}
