// Package apikeys is the API keys service: it owns the rules of a new key (its
// input, the mainnet gate, how many active keys a scope may hold) over a store
// that only persists, deciding on the merchant and the count the store read
// under its lock.
package apikeys

import (
	"context"
	"time"

	"github.com/kassapay/kassa"
)

// Store keeps API keys. Its create takes the service's decision and runs it
// inside its transaction.
type Store interface {
	// CreateAPIKey locks the merchant, counts its active keys of c's scope and
	// asks decide with the merchant (its id and mainnet access) and the count;
	// when decide returns nil it stores the key and returns it with its secret,
	// in one transaction. decide's error is returned as it is, and nothing is
	// written. c has passed kassa.APIKeyCreate.Validate (the service checks it);
	// the store refuses only a name its column cannot hold.
	CreateAPIKey(ctx context.Context, merchantID int64, c kassa.APIKeyCreate,
		decide func(m kassa.Merchant, active int) error) (*kassa.APIKey, string, error)
	APIKeys(ctx context.Context, merchantID int64, scope kassa.Scope) ([]*kassa.APIKey, error)
	RevokeAPIKey(ctx context.Context, merchantID int64, keyID, reason string) (*kassa.APIKey, error)
	AuthenticateAPIKey(ctx context.Context, secret string) (*kassa.APIKey, error)
	APIKey(ctx context.Context, merchantID int64, keyID string) (*kassa.APIKey, error)
	TouchAPIKey(ctx context.Context, keyID string, t time.Time) error
	// Now is the store's clock, the time a new key's expiry must be after.
	Now() time.Time
}

// Service manages a merchant's API keys (kassa.APIKeyService): the reads,
// revocation and authentication are the store's as they are.
type Service struct {
	Store
}

// Over is the service over s.
func Over(s Store) *Service { return &Service{Store: s} }

var _ kassa.APIKeyService = (*Service)(nil)

// CreateAPIKey checks c (kassa.APIKeyCreate.Validate at the store's clock) and
// creates the key, deciding on the merchant and the count the store read under
// its lock (DecideCreate); a refused c reaches no store.
func (s *Service) CreateAPIKey(ctx context.Context, merchantID int64, c kassa.APIKeyCreate) (*kassa.APIKey, string, error) {
	if err := c.Validate(s.Store.Now()); err != nil {
		return nil, "", err
	}
	return s.Store.CreateAPIKey(ctx, merchantID, c, func(m kassa.Merchant, active int) error {
		return DecideCreate(m, c, active)
	})
}

// DecideCreate is the rule of a new key c of merchant m, which holds active
// unexpired, unrevoked keys of c's scope: a mainnet key needs mainnet access
// (kassa.Merchant.Allows: 403 mainnet_not_enabled, param environment); a scope
// holds at most kassa.MaxActiveKeysPerScope active keys (403 key_limit_reached).
func DecideCreate(m kassa.Merchant, c kassa.APIKeyCreate, active int) error {
	if !m.Allows(c.Environment) {
		err := kassa.ErrMainnetNotEnabled()
		err.Param = "environment"
		return err
	}
	if active >= kassa.MaxActiveKeysPerScope {
		return kassa.Errorf(kassa.KindPermission, "key_limit_reached",
			"At most %d active %s keys are allowed; revoke one first.", kassa.MaxActiveKeysPerScope, c.Scope)
	}
	return nil
}
