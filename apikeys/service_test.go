package apikeys_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/apikeys"
)

// t0 is the fake store's clock.
var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// lockedMerchant is a store holding one merchant and its count of active keys:
// its create asks the service's decision as the real store does, and writes
// only when allowed.
type lockedMerchant struct {
	apikeys.Store // the rest, unused here
	m             kassa.Merchant
	active        int
	called, wrote bool
}

func (s *lockedMerchant) Now() time.Time { return t0 }

func (s *lockedMerchant) CreateAPIKey(_ context.Context, merchantID int64, c kassa.APIKeyCreate,
	decide func(kassa.Merchant, int) error) (*kassa.APIKey, string, error) {
	s.called = true
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

// TestCreateChecksInput: the service checks a new key's fields
// (kassa.APIKeyCreate.Validate at the store's clock) before the store is
// called, and the input's refusal comes before the mainnet gate.
func TestCreateChecksInput(t *testing.T) {
	at := func(d time.Duration) *time.Time { t := t0.Add(d); return &t }
	valid := kassa.APIKeyCreate{Name: "server", Scope: kassa.ScopeMerchant, Environment: kassa.Devnet}
	for _, tc := range []struct {
		name  string
		edit  func(c *kassa.APIKeyCreate)
		code  string
		param string
	}{
		{name: "valid", edit: func(*kassa.APIKeyCreate) {}},
		{name: "expires in a second", edit: func(c *kassa.APIKeyCreate) { c.ExpiresAt = at(time.Second) }},
		{name: "255 characters", edit: func(c *kassa.APIKeyCreate) { c.Name = strings.Repeat("é", 255) }},
		{name: "empty name", edit: func(c *kassa.APIKeyCreate) { c.Name = " " }, code: "invalid_name", param: "name"},
		{name: "256 characters", edit: func(c *kassa.APIKeyCreate) { c.Name = strings.Repeat("é", 256) }, code: "invalid_name", param: "name"},
		{name: "not UTF-8", edit: func(c *kassa.APIKeyCreate) { c.Name = "a\xff" }, code: "invalid_name", param: "name"},
		{name: "control character", edit: func(c *kassa.APIKeyCreate) { c.Name = "a\x00b" }, code: "invalid_name", param: "name"},
		{name: "bad scope", edit: func(c *kassa.APIKeyCreate) { c.Scope = "admin" }, code: "invalid_scope", param: "scope"},
		{name: "bad environment", edit: func(c *kassa.APIKeyCreate) { c.Environment = "testnet" }, code: "invalid_environment", param: "environment"},
		{name: "expires now", edit: func(c *kassa.APIKeyCreate) { c.ExpiresAt = at(0) }, code: "invalid_expires_at", param: "expires_at"},
		{name: "expired already", edit: func(c *kassa.APIKeyCreate) { c.ExpiresAt = at(-time.Hour) }, code: "invalid_expires_at", param: "expires_at"},
		{name: "input before the mainnet gate", edit: func(c *kassa.APIKeyCreate) { c.Name, c.Environment = "", kassa.Mainnet },
			code: "invalid_name", param: "name"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := valid
			tc.edit(&c)
			s := &lockedMerchant{m: kassa.Merchant{ID: 7}}
			_, _, err := apikeys.Over(s).CreateAPIKey(context.Background(), 7, c)
			var e *kassa.Error
			switch {
			case tc.code == "" && err != nil:
				t.Fatalf("CreateAPIKey: %v", err)
			case tc.code != "" && (!errors.As(err, &e) || e.Kind != kassa.KindInvalid || e.Code != tc.code || e.Param != tc.param):
				t.Fatalf("CreateAPIKey: %v, want invalid %s (param %q)", err, tc.code, tc.param)
			}
			if s.called != (tc.code == "") {
				t.Errorf("store called: %v, want %v", s.called, tc.code == "")
			}
		})
	}
}
