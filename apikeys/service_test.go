package apikeys_test

import (
	"context"
	"errors"
	"testing"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/apikeys"
)

// lockedMerchant is a store holding one merchant and its count of active keys:
// its create asks the service's decision as the real store does, and writes
// only when allowed.
type lockedMerchant struct {
	apikeys.Store // the rest, unused here
	m             kassa.Merchant
	active        int
	wrote         bool
}

func (s *lockedMerchant) CreateAPIKey(_ context.Context, merchantID int64, c kassa.APIKeyCreate,
	decide func(kassa.Merchant, int) error) (*kassa.APIKey, string, error) {
	if merchantID != s.m.ID {
		return nil, "", kassa.NotFound("merchant")
	}
	if err := decide(s.m, s.active); err != nil {
		return nil, "", err
	}
	s.wrote = true
	return &kassa.APIKey{ID: "k", MerchantID: merchantID, Scope: c.Scope, Environment: c.Environment}, "secret", nil
}

func TestCreateDecides(t *testing.T) {
	for _, tc := range []struct {
		name    string
		mainnet bool
		env     kassa.Environment
		active  int
		code    string
		param   string
	}{
		{name: "devnet key", env: kassa.Devnet},
		{name: "mainnet key with access", mainnet: true, env: kassa.Mainnet},
		{name: "mainnet key without access", env: kassa.Mainnet, code: "mainnet_not_enabled", param: "environment"},
		{name: "one short of the limit", env: kassa.Devnet, active: kassa.MaxActiveKeysPerScope - 1},
		{name: "at the limit", env: kassa.Devnet, active: kassa.MaxActiveKeysPerScope, code: "key_limit_reached"},
		{name: "gate before the limit", env: kassa.Mainnet, active: kassa.MaxActiveKeysPerScope, code: "mainnet_not_enabled", param: "environment"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &lockedMerchant{m: kassa.Merchant{ID: 7, MainnetEnabled: tc.mainnet}, active: tc.active}
			_, _, err := apikeys.Over(s).CreateAPIKey(context.Background(), 7,
				kassa.APIKeyCreate{Name: "k", Scope: kassa.ScopeMerchant, Environment: tc.env})
			var e *kassa.Error
			switch {
			case tc.code == "" && err != nil:
				t.Fatalf("CreateAPIKey: %v", err)
			case tc.code != "" && (!errors.As(err, &e) || e.Code != tc.code || e.Param != tc.param):
				t.Fatalf("CreateAPIKey: %v, want %s (param %q)", err, tc.code, tc.param)
			}
			if s.wrote != (tc.code == "") {
				t.Errorf("store wrote the key: %v, want %v", s.wrote, tc.code == "")
			}
		})
	}
}
