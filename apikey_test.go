package kassa

import (
	"encoding/hex"
	"strings"
	"testing"
	"time"
)

func TestAPIKeySecretRoundTrip(t *testing.T) {
	seen := map[string]bool{}
	for _, env := range []Environment{Devnet, Mainnet} {
		for _, scope := range []Scope{ScopeMerchant, ScopeCommerce} {
			secret, prefix := NewAPIKeySecret(env, scope)
			head := "kassa_" + string(env) + "_" + string(scope) + "_"
			if !strings.HasPrefix(secret, head) {
				t.Errorf("secret %q does not start with %q", secret, head)
			}
			if len(secret) != len(head)+52 {
				t.Errorf("secret %q has %d random characters, want 52", secret, len(secret)-len(head))
			}
			if len(prefix) != 12 || !strings.HasPrefix(secret, head+prefix) {
				t.Errorf("prefix %q is not the first 12 random characters of %q", prefix, secret)
			}
			got, ok := ParseAPIKeySecret(secret)
			if !ok || got != prefix {
				t.Errorf("ParseAPIKeySecret(%q) = %q, %v; want %q, true", secret, got, ok, prefix)
			}
			if seen[secret] || seen[prefix] {
				t.Errorf("secret or prefix repeated: %q", secret)
			}
			seen[secret], seen[prefix] = true, true
		}
	}
}

func TestParseAPIKeySecretRejects(t *testing.T) {
	good, _ := NewAPIKeySecret(Devnet, ScopeMerchant)
	random := good[len("kassa_devnet_merchant_"):]
	for _, s := range []string{
		"",
		"kassa_",
		random,
		"sk_test_" + random,
		"Kassa_devnet_merchant_" + random,
		"kassa_testnet_merchant_" + random,
		"kassa_devnet_admin_" + random,
		"kassa_merchant_devnet_" + random,
		"kassa_devnet_merchant_" + random[:51],
		"kassa_devnet_merchant_" + random + "a",
		"kassa_devnet_merchant_" + strings.ToUpper(random),
		"kassa_devnet_merchant_" + random[:51] + "1", // 1 is not base32
		"kassa_devnet_merchant_" + random[:51] + "=",
		"kassa_devnet_merchant_" + random[:20] + "_" + random[21:],
		"kassa_devnet_merchant__" + random[1:],
		" " + good,
		good + " ",
		good + "\n",
	} {
		if p, ok := ParseAPIKeySecret(s); ok {
			t.Errorf("ParseAPIKeySecret(%q) = %q, true; want false", s, p)
		}
	}
}

func TestHashSecret(t *testing.T) {
	// SHA-256("abc").
	if got := hex.EncodeToString(HashSecret("abc")); got != "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" {
		t.Errorf("HashSecret(abc) = %s", got)
	}
	secret, _ := NewAPIKeySecret(Mainnet, ScopeCommerce)
	h := HashSecret(secret)
	if !SecretMatches(secret, h) {
		t.Error("a secret does not match its own hash")
	}
	for _, wrong := range []string{"", secret[:len(secret)-1], secret + "a", strings.ToUpper(secret)} {
		if SecretMatches(wrong, h) {
			t.Errorf("SecretMatches(%q) = true", wrong)
		}
	}
	if SecretMatches(secret, nil) || SecretMatches(secret, h[:31]) {
		t.Error("a secret matches an empty or short hash")
	}
}

func TestAPIKeyStatus(t *testing.T) {
	now := time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)
	past, future := now.Add(-time.Second), now.Add(time.Second)
	reason := "leaked"
	tests := []struct {
		name string
		key  APIKey
		want string
	}{
		{"no expiry", APIKey{}, KeyActive},
		{"expires later", APIKey{ExpiresAt: &future}, KeyActive},
		{"expires now", APIKey{ExpiresAt: &now}, KeyExpired},
		{"expired", APIKey{ExpiresAt: &past}, KeyExpired},
		{"revoked", APIKey{RevokedAt: &past, RevokedReason: &reason}, KeyRevoked},
		{"revoked and expired", APIKey{RevokedAt: &past, ExpiresAt: &past}, KeyRevoked},
		{"revoked, expires later", APIKey{RevokedAt: &past, ExpiresAt: &future}, KeyRevoked},
	}
	for _, tt := range tests {
		if got := tt.key.Status(now); got != tt.want {
			t.Errorf("%s: Status = %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestAPIKeyCreateValidate(t *testing.T) {
	now := time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)
	past, future := now.Add(-time.Second), now.Add(time.Hour)
	valid := func() APIKeyCreate {
		return APIKeyCreate{Name: "Backend", Scope: ScopeMerchant, Environment: Devnet}
	}
	tests := []struct {
		name   string
		change func(*APIKeyCreate)
		param  string
		code   string
	}{
		{"valid", func(*APIKeyCreate) {}, "", ""},
		{"commerce mainnet", func(c *APIKeyCreate) { c.Scope, c.Environment = ScopeCommerce, Mainnet }, "", ""},
		{"future expiry", func(c *APIKeyCreate) { c.ExpiresAt = &future }, "", ""},
		{"255 characters", func(c *APIKeyCreate) { c.Name = strings.Repeat("é", 255) }, "", ""},
		{"empty name", func(c *APIKeyCreate) { c.Name = "" }, "name", "invalid_name"},
		{"blank name", func(c *APIKeyCreate) { c.Name = " \t " }, "name", "invalid_name"},
		{"256 characters", func(c *APIKeyCreate) { c.Name = strings.Repeat("a", 256) }, "name", "invalid_name"},
		{"control character", func(c *APIKeyCreate) { c.Name = "a\x00b" }, "name", "invalid_name"},
		{"newline", func(c *APIKeyCreate) { c.Name = "a\nb" }, "name", "invalid_name"},
		{"delete", func(c *APIKeyCreate) { c.Name = "a\x7fb" }, "name", "invalid_name"},
		{"no scope", func(c *APIKeyCreate) { c.Scope = "" }, "scope", "invalid_scope"},
		{"unknown scope", func(c *APIKeyCreate) { c.Scope = "admin" }, "scope", "invalid_scope"},
		{"no environment", func(c *APIKeyCreate) { c.Environment = "" }, "environment", "invalid_environment"},
		{"unknown environment", func(c *APIKeyCreate) { c.Environment = "testnet" }, "environment", "invalid_environment"},
		{"expiry now", func(c *APIKeyCreate) { c.ExpiresAt = &now }, "expires_at", "invalid_expires_at"},
		{"expiry past", func(c *APIKeyCreate) { c.ExpiresAt = &past }, "expires_at", "invalid_expires_at"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := valid()
			tt.change(&c)
			err := c.Validate(now)
			if tt.code == "" {
				if err != nil {
					t.Fatalf("Validate = %v", err)
				}
				return
			}
			wantCode(t, err, KindInvalid, tt.code, tt.param)
		})
	}
}

func TestEnvironmentAndScope(t *testing.T) {
	for _, e := range []Environment{Devnet, Mainnet} {
		if !e.Valid() {
			t.Errorf("%s not valid", e)
		}
	}
	for _, e := range []Environment{"", "Devnet", "testnet"} {
		if e.Valid() {
			t.Errorf("%q valid", e)
		}
	}
	for _, s := range []Scope{ScopeMerchant, ScopeCommerce} {
		if !s.Valid() {
			t.Errorf("%s not valid", s)
		}
	}
	for _, s := range []Scope{"", "Merchant", "admin"} {
		if s.Valid() {
			t.Errorf("%q valid", s)
		}
	}
	if !(Principal{MerchantID: 1}).Dashboard() || (Principal{MerchantID: 1, KeyID: "k"}).Dashboard() {
		t.Error("Dashboard() must be true exactly when no key id is set")
	}
}
