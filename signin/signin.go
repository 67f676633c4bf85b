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
