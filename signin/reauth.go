package signin

import (
	"context"

	"github.com/kassapay/kassa"
)

// ErrReauthenticationRequired is the answer to a sensitive change without the
// current password.
func ErrReauthenticationRequired() error {
	return &kassa.Error{Kind: kassa.KindPermission, Code: "reauthentication_required", Param: "current_password",
		Message: "This change needs your current password as current_password (and the code as code when two-step sign-in is on)."}
}

// ErrInvalidCurrentPassword is the answer to a sensitive change with a wrong
// current password.
func ErrInvalidCurrentPassword() error {
	return &kassa.Error{Kind: kassa.KindPermission, Code: "invalid_current_password", Param: "current_password",
		Message: "The current password is incorrect."}
}

// Reauthenticate checks, before a sensitive change, that the caller still knows
// the merchant's password and, when two-step sign-in is on, has its code (used
// once). Missing or wrong is KindPermission: reauthentication_required or
// invalid_current_password (param current_password), second_factor_required or
// invalid_code (param code). Attempts count on the account as sign-ins do, so a
// stolen session cannot guess the password any faster; a held account is
// *Held.
func (s *Service) Reauthenticate(ctx context.Context, merchantID int64, p Proof) error {
	if p.Password == "" {
		return ErrReauthenticationRequired()
	}
	m, err := s.merchants.Merchant(ctx, merchantID)
	if err != nil {
		return err
	}
	account := kassa.SignInAccount(m.Email)
	if err := s.merchants.BeginSignIn(ctx, account); err != nil {
		return err
	}
	if _, err := s.merchants.Login(ctx, m.Email, p.Password); err != nil {
		if kassa.ErrorKindOf(err) == kassa.KindUnauthenticated {
			return ErrInvalidCurrentPassword()
		}
		return err
	}
	if err := s.secondFactor(ctx, m.ID, p.Code, kassa.KindPermission); err != nil {
		return err
	}
	return s.merchants.SignedIn(ctx, account)
}

// ChangePassword sets the password to next after Reauthenticate; it bumps the
// credential version (every token and session ends).
func (s *Service) ChangePassword(ctx context.Context, merchantID int64, p Proof, next string) error {
	if err := kassa.CheckPassword("new_password", next); err != nil {
		return err
	}
	if err := s.Reauthenticate(ctx, merchantID, p); err != nil {
		return err
	}
	return s.merchants.ChangePassword(ctx, merchantID, p.Password, next)
}

// SignOutEverywhere ends every dashboard token and session of the merchant.
// It needs no proof: it only takes access away.
func (s *Service) SignOutEverywhere(ctx context.Context, merchantID int64) error {
	return s.merchants.SignOutEverywhere(ctx, merchantID)
}
