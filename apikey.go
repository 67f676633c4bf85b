package kassa

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"strings"
	"time"
	"unicode/utf8"
)

// MaxActiveKeysPerScope is how many unrevoked, unexpired keys a merchant may hold per
// scope; creating one more is refused with key_limit_reached.
const MaxActiveKeysPerScope = 10

// API key status values as listed.
const (
	KeyActive  = "active"
	KeyRevoked = "revoked"
	KeyExpired = "expired"
)

// APIKey is an API key's metadata. The secret is never stored; only its SHA-256 is.
type APIKey struct {
	ID            string
	MerchantID    int64
	Name          string
	Scope         Scope
	Environment   Environment
	Prefix        string // public lookup prefix, part of the secret
	ExpiresAt     *time.Time
	LastUsedAt    *time.Time
	CreatedAt     time.Time
	RevokedAt     *time.Time
	RevokedReason *string
}

// Status is the key's status at now: revoked, expired or active.
func (k *APIKey) Status(now time.Time) string {
	switch {
	case k.RevokedAt != nil:
		return KeyRevoked
	case k.ExpiresAt != nil && !now.Before(*k.ExpiresAt):
		return KeyExpired
	default:
		return KeyActive
	}
}

// APIKeyCreate is a validated request for a new key.
type APIKeyCreate struct {
	Name        string
	Scope       Scope
	Environment Environment
	ExpiresAt   *time.Time
}

// Validate checks the request against the rules of the key API at time now.
func (c *APIKeyCreate) Validate(now time.Time) error {
	name := strings.TrimSpace(c.Name)
	switch {
	case name == "":
		return Invalidf("name", "invalid_name", "name must not be empty.")
	case !utf8.ValidString(c.Name):
		return Invalidf("name", "invalid_name", "name must be valid UTF-8.")
	case utf8.RuneCountInString(c.Name) > 255:
		return Invalidf("name", "invalid_name", "name must be at most 255 characters.")
	case hasControl(c.Name):
		return Invalidf("name", "invalid_name", "name must not contain control characters.")
	case !c.Scope.Valid():
		return Invalidf("scope", "invalid_scope", "scope must be merchant or commerce.")
	case !c.Environment.Valid():
		return Invalidf("environment", "invalid_environment", "environment must be devnet or mainnet.")
	case c.ExpiresAt != nil && !c.ExpiresAt.After(now):
		return Invalidf("expires_at", "invalid_expires_at", "expires_at must be in the future.")
	}
	return nil
}

func hasControl(s string) bool {
	for _, r := range s {
		if r < 0x20 || r == 0x7f {
			return true
		}
	}
	return false
}

// keySecretLen is the length of the random part of a key secret: 32 bytes in base32.
const keySecretLen = 52

// keyPrefixLen is how much of the random part is stored in clear for lookup.
const keyPrefixLen = 12

// NewAPIKeySecret returns a new key secret of the form kassa_<env>_<scope>_<random>,
// so a leaked key says what it is, and its public lookup prefix.
func NewAPIKeySecret(env Environment, scope Scope) (secret, prefix string) {
	random := RandomBase32(32)
	return "kassa_" + string(env) + "_" + string(scope) + "_" + random, random[:keyPrefixLen]
}

// ParseAPIKeySecret returns the lookup prefix of a well-formed key secret.
func ParseAPIKeySecret(secret string) (prefix string, ok bool) {
	rest, ok := strings.CutPrefix(secret, "kassa_")
	if !ok {
		return "", false
	}
	parts := strings.Split(rest, "_")
	if len(parts) != 3 || !Environment(parts[0]).Valid() || !Scope(parts[1]).Valid() {
		return "", false
	}
	random := parts[2]
	if len(random) != keySecretLen {
		return "", false
	}
	for i := 0; i < len(random); i++ {
		c := random[i]
		if !('a' <= c && c <= 'z') && !('2' <= c && c <= '7') {
			return "", false
		}
	}
	return random[:keyPrefixLen], true
}

// HashSecret returns the SHA-256 of a high-entropy secret (API key, session token).
// Such secrets need no slow hash: 256 random bits cannot be guessed.
func HashSecret(secret string) []byte {
	h := sha256.Sum256([]byte(secret))
	return h[:]
}

// SecretMatches compares a secret with a stored hash in constant time.
func SecretMatches(secret string, hash []byte) bool {
	return subtle.ConstantTimeCompare(HashSecret(secret), hash) == 1
}

// APIKeyService manages a merchant's API keys and authenticates requests by key.
type APIKeyService interface {
	// CreateAPIKey stores a new key and returns it with its secret, shown only now.
	// A merchant without mainnet access gets mainnet_not_enabled; an eleventh active
	// key of one scope gets key_limit_reached.
	CreateAPIKey(ctx context.Context, merchantID int64, c APIKeyCreate) (*APIKey, string, error)
	// APIKeys lists the merchant's keys, newest first; scope "" lists all scopes.
	APIKeys(ctx context.Context, merchantID int64, scope Scope) ([]*APIKey, error)
	// RevokeAPIKey revokes one of the merchant's keys; revoking twice keeps the first.
	RevokeAPIKey(ctx context.Context, merchantID int64, keyID, reason string) (*APIKey, error)
	// AuthenticateAPIKey finds the key for a secret. Unknown, revoked and expired keys
	// give KindUnauthenticated errors.
	AuthenticateAPIKey(ctx context.Context, secret string) (*APIKey, error)
	// APIKey returns the merchant's key with id keyID (any status), or not found.
	APIKey(ctx context.Context, merchantID int64, keyID string) (*APIKey, error)
	// TouchAPIKey records that the key was used at t.
	TouchAPIKey(ctx context.Context, keyID string, t time.Time) error
}
