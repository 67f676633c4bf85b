package store_test

import (
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/apikeys"
	"github.com/kassapay/kassa/store"
	"github.com/kassapay/kassa/store/storetest"
)

// key creates a key of scope for merchant m, failing the test on error.
func (f *fixture) key(t *testing.T, m *kassa.Merchant, scope kassa.Scope, expires *time.Time) (*kassa.APIKey, string) {
	t.Helper()
	k, secret, err := apikeys.Over(f.db).CreateAPIKey(f.ctx, m.ID, kassa.APIKeyCreate{Name: "key", Scope: scope, Environment: kassa.Devnet, ExpiresAt: expires})
	if err != nil {
		t.Fatalf("CreateAPIKey: %v", err)
	}
	return k, secret
}

func TestAPIKeyCreateAndList(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		f := newFixture(t, cfg)
		exp := t0.Add(48 * time.Hour)
		k1, secret, err := apikeys.Over(f.db).CreateAPIKey(f.ctx, f.m.ID, kassa.APIKeyCreate{Name: "server", Scope: kassa.ScopeMerchant, Environment: kassa.Devnet, ExpiresAt: &exp})
		must(t, err)
		if !strings.HasPrefix(secret, "kassa_devnet_merchant_") || !strings.Contains(secret, k1.Prefix) || !kassa.ValidUUID(k1.ID) || k1.ID[14] != '4' {
			t.Fatalf("key %+v secret %q", k1, secret)
		}
		f.clock.Advance(time.Second)
		k2, _ := f.key(t, f.m, kassa.ScopeCommerce, nil)
		f.clock.Advance(time.Second)
		k3, _ := f.key(t, f.m, kassa.ScopeMerchant, nil)
		other := f.merchant(t, "other@example.com")
		f.key(t, other, kassa.ScopeMerchant, nil)

		tests := []struct {
			scope kassa.Scope
			want  []string
		}{
			{"", []string{k3.ID, k2.ID, k1.ID}},
			{kassa.ScopeMerchant, []string{k3.ID, k1.ID}},
			{kassa.ScopeCommerce, []string{k2.ID}},
		}
		for _, tt := range tests {
			t.Run("scope="+string(tt.scope), func(t *testing.T) {
				keys, err := f.db.APIKeys(f.ctx, f.m.ID, tt.scope)
				must(t, err)
				var got []string
				for _, k := range keys {
					got = append(got, k.ID)
				}
				if strings.Join(got, ",") != strings.Join(tt.want, ",") {
					t.Fatalf("APIKeys(%q) = %v, want %v", tt.scope, got, tt.want)
				}
			})
		}
		keys, err := f.db.APIKeys(f.ctx, f.m.ID, kassa.ScopeMerchant)
		must(t, err)
		got := keys[1]
		if got.Name != "server" || got.ExpiresAt == nil || !got.ExpiresAt.Equal(exp.Truncate(time.Microsecond)) ||
			!got.CreatedAt.Equal(k1.CreatedAt) || got.RevokedAt != nil || got.LastUsedAt != nil || got.Status(f.clock.Now()) != kassa.KeyActive {
			t.Fatalf("listed key = %+v, created %+v", got, k1)
		}
	})
}

// TestAPIKeyCreateMainnetGate: the service's decision runs on the merchant row
// the store reads in its transaction: no mainnet key before mainnet access, one
// after. (The input checks are the service's: apikeys.TestCreateChecksInput.)
func TestAPIKeyCreateMainnetGate(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		f := newFixture(t, cfg)
		c := kassa.APIKeyCreate{Name: "m", Scope: kassa.ScopeMerchant, Environment: kassa.Mainnet}
		_, _, err := apikeys.Over(f.db).CreateAPIKey(f.ctx, f.m.ID, c)
		wantErr(t, err, kassa.KindPermission, "mainnet_not_enabled")
		_, err = f.db.EnableMainnet(f.ctx, f.m.ID)
		must(t, err)
		k, secret, err := apikeys.Over(f.db).CreateAPIKey(f.ctx, f.m.ID, c)
		must(t, err)
		if k.Environment != kassa.Mainnet || !strings.HasPrefix(secret, "kassa_mainnet_merchant_") {
			t.Fatalf("mainnet key %+v %q", k, secret)
		}
	})
}

func TestAPIKeyLimit(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		f := newFixture(t, cfg)
		var first *kassa.APIKey
		for i := 0; i < kassa.MaxActiveKeysPerScope; i++ {
			k, _ := f.key(t, f.m, kassa.ScopeMerchant, nil)
			first = k
		}
		_, _, err := apikeys.Over(f.db).CreateAPIKey(f.ctx, f.m.ID, kassa.APIKeyCreate{Name: "11th", Scope: kassa.ScopeMerchant, Environment: kassa.Devnet})
		wantErr(t, err, kassa.KindPermission, "key_limit_reached")
		// The limit is per scope.
		f.key(t, f.m, kassa.ScopeCommerce, nil)
		// Revoking one frees a place.
		_, err = f.db.RevokeAPIKey(f.ctx, f.m.ID, first.ID, "")
		must(t, err)
		f.key(t, f.m, kassa.ScopeMerchant, nil)
		_, _, err = apikeys.Over(f.db).CreateAPIKey(f.ctx, f.m.ID, kassa.APIKeyCreate{Name: "again", Scope: kassa.ScopeMerchant, Environment: kassa.Devnet})
		wantErr(t, err, kassa.KindPermission, "key_limit_reached")
	})
}

func TestAPIKeyLimitExpiredKeysDoNotCount(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		f := newFixture(t, cfg)
		soon := t0.Add(time.Minute)
		for i := 0; i < kassa.MaxActiveKeysPerScope; i++ {
			f.key(t, f.m, kassa.ScopeMerchant, &soon)
		}
		f.clock.Advance(time.Minute)
		f.key(t, f.m, kassa.ScopeMerchant, nil)
	})
}

func TestAPIKeyLimitConcurrent(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		f := newFixture(t, cfg)
		const n = 15
		var (
			wg      sync.WaitGroup
			mu      sync.Mutex
			ok      int
			limited int
		)
		for i := 0; i < n; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, _, err := apikeys.Over(f.db).CreateAPIKey(f.ctx, f.m.ID, kassa.APIKeyCreate{Name: "c", Scope: kassa.ScopeMerchant, Environment: kassa.Devnet})
				mu.Lock()
				defer mu.Unlock()
				switch {
				case err == nil:
					ok++
				case kassa.ErrorCode(err) == "key_limit_reached":
					limited++
				default:
					t.Errorf("CreateAPIKey: %v", err)
				}
			}()
		}
		wg.Wait()
		if ok != kassa.MaxActiveKeysPerScope || limited != n-kassa.MaxActiveKeysPerScope {
			t.Fatalf("%d created, %d refused; want %d and %d", ok, limited, kassa.MaxActiveKeysPerScope, n-kassa.MaxActiveKeysPerScope)
		}
		keys, err := f.db.APIKeys(f.ctx, f.m.ID, kassa.ScopeMerchant)
		must(t, err)
		if len(keys) != kassa.MaxActiveKeysPerScope {
			t.Fatalf("%d keys stored, want %d", len(keys), kassa.MaxActiveKeysPerScope)
		}
	})
}
