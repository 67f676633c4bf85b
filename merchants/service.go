package merchants

import (
	"context"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/signin"
)

// Store persists merchant accounts as it is given them: it checks nothing but
// that an email is not taken (409 email_taken).
type Store interface {
	// CreateMerchant stores a new merchant; the password is kept only as a slow
	// hash, and the company name starts as the name.
	CreateMerchant(ctx context.Context, c kassa.MerchantCreate) (*kassa.Merchant, error)
	Merchant(ctx context.Context, id int64) (*kassa.Merchant, error)
	// UpdateMerchant applies u's set fields to the merchant, locked.
	UpdateMerchant(ctx context.Context, id int64, u kassa.MerchantUpdate) (*kassa.Merchant, error)
	// EnableMainnet grants the merchant access to mainnet.
	EnableMainnet(ctx context.Context, id int64) (*kassa.Merchant, error)
}

// Service manages merchant accounts.
type Service struct {
	store  Store
	signIn *signin.Service // re-authenticates sensitive changes
}

// New returns the service over store, with signIn checking the proof that
// sensitive changes need.
func New(store Store, signIn *signin.Service) *Service {
	return &Service{store: store, signIn: signIn}
}

// Create checks a new account (kassa.MerchantCreate.Validate) and stores it with
// its email in the one form logins look it up by (kassa.NormalizeEmail), so two
// spellings of one address are one account (409 email_taken).
func (s *Service) Create(ctx context.Context, c kassa.MerchantCreate) (*kassa.Merchant, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	c.Email = kassa.NormalizeEmail(c.Email)
	return s.store.CreateMerchant(ctx, c)
}

// Update applies u to the merchant: bad input is refused first
// (kassa.MerchantUpdate.Validate), then a sensitive change (the email, a
// settlement target, the underpayment tolerance: kassa.MerchantUpdate.Sensitive)
// needs p to pass signin.Service.Reauthenticate; other changes need no proof. A
// new email is stored normalised, as Create stores it.
func (s *Service) Update(ctx context.Context, merchantID int64, u kassa.MerchantUpdate, p signin.Proof) (*kassa.Merchant, error) {
	if err := u.Validate(); err != nil {
		return nil, err
	}
	if u.Sensitive() {
		if err := s.signIn.Reauthenticate(ctx, merchantID, p); err != nil {
			return nil, err
		}
	}
	if u.Email != nil {
		email := kassa.NormalizeEmail(*u.Email)
		u.Email = &email
	}
	return s.store.UpdateMerchant(ctx, merchantID, u)
}

// EnableMainnet grants the merchant mainnet access; one that has it already
// (kassa.Merchant.Allows) is answered as it is, with nothing written.
func (s *Service) EnableMainnet(ctx context.Context, merchantID int64) (*kassa.Merchant, error) {
	m, err := s.store.Merchant(ctx, merchantID)
	if err != nil || m.Allows(kassa.Mainnet) {
		return m, err
	}
	return s.store.EnableMainnet(ctx, merchantID)
}
