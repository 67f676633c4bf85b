package store_test

import (
	"strings"
	"testing"
	"time"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/store"
	"github.com/kassapay/kassa/store/storetest"
)

func TestAPIKeyRevoke(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		f := newFixture(t, cfg)
		k, _ := f.key(t, f.m, kassa.ScopeMerchant, nil)
		other := f.merchant(t, "other@example.com")
		foreign, _ := f.key(t, other, kassa.ScopeMerchant, nil)

		f.clock.Advance(time.Minute)
		r, err := f.db.RevokeAPIKey(f.ctx, f.m.ID, k.ID, "")
		must(t, err)
		revokedAt := f.clock.Now().Truncate(time.Microsecond)
		if r.RevokedAt == nil || !r.RevokedAt.Equal(revokedAt) || r.RevokedReason == nil || *r.RevokedReason != "requested_by_merchant" {
			t.Fatalf("revoked key = %+v", r)
		}
		if r.Status(f.clock.Now()) != kassa.KeyRevoked {
			t.Fatalf("status = %s, want revoked", r.Status(f.clock.Now()))
		}

		// Revoking twice keeps the first time and reason.
		f.clock.Advance(time.Minute)
		r2, err := f.db.RevokeAPIKey(f.ctx, f.m.ID, k.ID, "leaked")
		must(t, err)
		if !r2.RevokedAt.Equal(revokedAt) || *r2.RevokedReason != "requested_by_merchant" {
			t.Fatalf("second revoke changed the key: %+v", r2)
		}

		for name, id := range map[string]string{"foreign": foreign.ID, "unknown": kassa.NewUUID(), "garbage": "not-a-uuid"} {
			t.Run(name, func(t *testing.T) {
				_, err := f.db.RevokeAPIKey(f.ctx, f.m.ID, id, "x")
				wantErr(t, err, kassa.KindNotFound, "resource_missing")
			})
		}
		keys, err := f.db.APIKeys(f.ctx, other.ID, "")
		must(t, err)
		if keys[0].RevokedAt != nil {
			t.Fatal("foreign revoke revoked the other merchant's key")
		}
	})
}

func TestAPIKeyAuthenticate(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		f := newFixture(t, cfg)
		active, activeSecret := f.key(t, f.m, kassa.ScopeMerchant, nil)
		revoked, revokedSecret := f.key(t, f.m, kassa.ScopeMerchant, nil)
		_, err := f.db.RevokeAPIKey(f.ctx, f.m.ID, revoked.ID, "")
		must(t, err)
		soon := t0.Add(time.Hour)
		_, expiringSecret := f.key(t, f.m, kassa.ScopeCommerce, &soon)
		f.clock.Advance(time.Hour)

		// A secret with a known prefix but a different random tail.
		tampered := activeSecret[:len(activeSecret)-1] + map[bool]string{true: "b", false: "a"}[strings.HasSuffix(activeSecret, "a")]
		unknown, _ := kassa.NewAPIKeySecret(kassa.Devnet, kassa.ScopeMerchant)

		tests := []struct {
			name, secret, code string
		}{
			{"active", activeSecret, ""},
			{"revoked", revokedSecret, "api_key_revoked"},
			{"expired", expiringSecret, "api_key_expired"},
			{"garbage", "garbage", "invalid_api_key"},
			{"empty", "", "invalid_api_key"},
			{"unknown", unknown, "invalid_api_key"},
			{"tampered", tampered, "invalid_api_key"},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				k, err := f.db.AuthenticateAPIKey(f.ctx, tt.secret)
				if tt.code != "" {
					wantErr(t, err, kassa.KindUnauthenticated, tt.code)
					return
				}
				must(t, err)
				if k.ID != active.ID || k.MerchantID != f.m.ID || k.Environment != kassa.Devnet || k.Scope != kassa.ScopeMerchant {
					t.Fatalf("authenticated %+v, want %+v", k, active)
				}
			})
		}
	})
}

func TestAPIKeyTouch(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		f := newFixture(t, cfg)
		k, secret := f.key(t, f.m, kassa.ScopeMerchant, nil)
		used := t0.Add(5 * time.Minute)
		must(t, f.db.TouchAPIKey(f.ctx, k.ID, used))
		must(t, f.db.TouchAPIKey(f.ctx, k.ID, used.Add(-time.Minute))) // never moves back
		got, err := f.db.AuthenticateAPIKey(f.ctx, secret)
		must(t, err)
		if got.LastUsedAt == nil || !got.LastUsedAt.Equal(used.Truncate(time.Microsecond)) {
			t.Fatalf("last_used_at = %v, want %v", got.LastUsedAt, used)
		}
	})
}

// TestAPIKeyRevokeAfterUse checks that a key authenticated moments ago (and so held in
// the key cache) is refused as soon as it is revoked, and that a key expiring while
// cached is refused at once.
func TestAPIKeyRevokeAfterUse(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		f := newFixture(t, cfg)
		k, secret := f.key(t, f.m, kassa.ScopeMerchant, nil)
		_, err := f.db.AuthenticateAPIKey(f.ctx, secret)
		must(t, err)
		_, err = f.db.RevokeAPIKey(f.ctx, f.m.ID, k.ID, "")
		must(t, err)
		_, err = f.db.AuthenticateAPIKey(f.ctx, secret)
		wantErr(t, err, kassa.KindUnauthenticated, "api_key_revoked")

		soon := f.clock.Now().Add(time.Second)
		_, expiring := f.key(t, f.m, kassa.ScopeMerchant, &soon)
		_, err = f.db.AuthenticateAPIKey(f.ctx, expiring)
		must(t, err)
		f.clock.Advance(time.Second)
		_, err = f.db.AuthenticateAPIKey(f.ctx, expiring)
		wantErr(t, err, kassa.KindUnauthenticated, "api_key_expired")
	})
}

// TestStoreCloseTwice checks that closing a store twice is harmless.
func TestStoreCloseTwice(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		db := storetest.Open(t, cfg)
		db.Close() // storetest closes it again in cleanup
	})
}
