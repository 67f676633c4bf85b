package signin

import (
	"context"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/secondfactor"
)

// TwoStep is how a merchant's two-step sign-in stands for one dashboard
// session: on or off, and while it is off, the secret this session is enrolling
// ("" for none) with its otpauth:// URI. Once on, the secret is never given out
// again.
type TwoStep struct {
	On          bool
	Secret, URI string
}

// TwoStep reads how m's two-step sign-in stands for the dashboard session of
// token.
func (s *Service) TwoStep(ctx context.Context, m *kassa.Merchant, token string) (TwoStep, error) {
	secret, err := s.merchants.TOTPSecret(ctx, m.ID)
	if err != nil || secret != "" {
		return TwoStep{On: secret != ""}, err
	}
	pending, err := s.sessions.DashboardTOTPPending(ctx, token)
	if err != nil || pending == "" {
		return TwoStep{}, err
	}
	uri, err := secondfactor.URI(m.Email, pending)
	if err != nil {
		return TwoStep{}, err
	}
	return TwoStep{Secret: pending, URI: uri}, nil
}

// SetUpTwoStep starts enrolling m in two-step sign-in: a fresh secret, kept on
// the dashboard session of token, server-side, until a code proves it
// (EnableTwoStep); a new set-up replaces it.
func (s *Service) SetUpTwoStep(ctx context.Context, m *kassa.Merchant, token string) error {
	key, err := secondfactor.New(m.Email)
	if err != nil {
		return err
	}
	return s.sessions.SetDashboardTOTPPending(ctx, token, key.Secret)
}

// ErrTwoStepNotSetUp is the answer to turning two-step sign-in on before a
// secret was set up on the session.
func ErrTwoStepNotSetUp() error {
	return kassa.Errorf(kassa.KindInvalid, "two_step_not_set_up", "Set up two-step sign-in first.")
}

// ErrInvalidEnrolCode is the answer to turning two-step sign-in on with a code
// that is not one of the secret being enrolled.
func ErrInvalidEnrolCode() error {
	return &kassa.Error{Kind: kassa.KindInvalid, Code: "invalid_code", Param: "code",
		Message: "The code is incorrect; enter the current code your app shows for Kassa."}
}

// EnableTwoStep turns two-step sign-in on with the secret the dashboard session
// cur (of token) is enrolling (ErrTwoStepNotSetUp without one), after
// Reauthenticate with the password; p.Code must be a code of that secret
// (ErrInvalidEnrolCode). It bumps the credential version, which ends every
// session, so it starts a fresh one for the caller, in cur's environment, and
// returns its token.
func (s *Service) EnableTwoStep(ctx context.Context, token string, cur *DashboardSession, p Proof) (string, error) {
	pending, err := s.sessions.DashboardTOTPPending(ctx, token)
	if err != nil {
		return "", err
	}
	if pending == "" {
		return "", ErrTwoStepNotSetUp()
	}
	if err := s.Reauthenticate(ctx, cur.MerchantID, Proof{Password: p.Password}); err != nil {
		return "", err
	}
	step, ok := secondfactor.Step(pending, p.Code, s.now())
	if !ok {
		return "", ErrInvalidEnrolCode()
	}
	if err := s.merchants.EnableTOTP(ctx, cur.MerchantID, pending, step); err != nil {
		return "", err
	}
	return s.renew(ctx, cur)
}

// DisableTwoStep turns two-step sign-in off after Reauthenticate (password and
// code). It bumps the credential version and, as EnableTwoStep, returns the
// token of a fresh session for the caller.
func (s *Service) DisableTwoStep(ctx context.Context, cur *DashboardSession, p Proof) (string, error) {
	if err := s.Reauthenticate(ctx, cur.MerchantID, p); err != nil {
		return "", err
	}
	if err := s.merchants.DisableTOTP(ctx, cur.MerchantID); err != nil {
		return "", err
	}
	return s.renew(ctx, cur)
}

// renew starts a session of cur's merchant and environment under the credential
// version the merchant has now, after a change of its own moved it on.
func (s *Service) renew(ctx context.Context, cur *DashboardSession) (string, error) {
	m, err := s.merchants.Merchant(ctx, cur.MerchantID)
	if err != nil {
		return "", err
	}
	token := kassa.NewDashboardToken()
	_, err = s.sessions.CreateDashboardSession(ctx, token, m.ID, m.CredentialVersion, cur.Environment)
	return token, err
}
