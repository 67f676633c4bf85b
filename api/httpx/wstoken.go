package httpx

import (
	"crypto/hmac"
	"crypto/sha256"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/kassapay/kassa"
)

// WebSocket token ttl bounds, in seconds.
const (
	WSTokenMinTTL     = 60
	WSTokenMaxTTL     = 86400
	WSTokenDefaultTTL = 3600
)

// WSToken is what a WebSocket token grants: one key's merchant, environment and
// scope until ExpiresAt. A token minted with a dashboard login has no KeyID and
// carries the merchant's credential version instead: it lives no longer than the
// login (see kassa.Merchant.CredentialVersion).
type WSToken struct {
	KeyID string
	// CredentialVersion is the merchant's credential version a token without a
	// KeyID was minted under; the token is refused (and its streams closed) once
	// the merchant's version moves on.
	CredentialVersion int64
	MerchantID        int64
	Environment       kassa.Environment
	Scope             kassa.Scope
	ExpiresAt         int64 // Unix seconds
}

// wsClaims are a WebSocket token's JWT claims: the merchant as subject, the
// expiry, and the grant.
type wsClaims struct {
	jwt.RegisteredClaims
	KeyID             string            `json:"k,omitempty"`
	CredentialVersion int64             `json:"cv,omitempty"`
	Environment       kassa.Environment `json:"e"`
	Scope             kassa.Scope       `json:"s"`
}

// wsTokenPrefix marks a WebSocket token, so it is told apart from an API key or
// a dashboard JWT at a glance; the rest is a JWT (HS256).
const wsTokenPrefix = "wst_"

// WSTokenSigner mints and checks WebSocket tokens: "wst_" + a JWT signed with
// HS256 (golang-jwt, as the dashboard's tokens are). Its key is derived from the
// server secret for this one use, so a WebSocket token never passes for a
// dashboard token, nor the other way round.
type WSTokenSigner struct{ key []byte }

// NewWSTokenSigner returns a signer keyed by the server secret.
func NewWSTokenSigner(secret []byte) WSTokenSigner {
	m := hmac.New(sha256.New, secret)
	m.Write([]byte("kassa websocket token v2"))
	return WSTokenSigner{key: m.Sum(nil)}
}

// Mint returns the signed token of t.
func (s WSTokenSigner) Mint(t WSToken) string {
	claims := wsClaims{
		RegisteredClaims: jwt.RegisteredClaims{
			Subject:   strconv.FormatInt(t.MerchantID, 10),
			ExpiresAt: jwt.NewNumericDate(time.Unix(t.ExpiresAt, 0)),
		},
		KeyID: t.KeyID, CredentialVersion: t.CredentialVersion, Environment: t.Environment, Scope: t.Scope,
	}
	// HS256 signing with a 32-byte key and JSON-encodable claims cannot fail.
	token, _ := jwt.NewWithClaims(jwt.SigningMethodHS256, claims).SignedString(s.key)
	return wsTokenPrefix + token
}

// Parse checks a token's signature (in constant time) and expiry at now. Any
// failure is an unauthenticated error: token_expired once now reaches its expiry,
// else invalid_token.
func (s WSTokenSigner) Parse(token string, now time.Time) (WSToken, error) {
	invalid := kassa.Errorf(kassa.KindUnauthenticated, "invalid_token", "Invalid or expired WebSocket token.")
	rest, ok := strings.CutPrefix(token, wsTokenPrefix)
	if !ok {
		return WSToken{}, invalid
	}
	var c wsClaims
	_, err := jwt.ParseWithClaims(rest, &c, func(*jwt.Token) (any, error) { return s.key, nil },
		jwt.WithValidMethods([]string{jwt.SigningMethodHS256.Alg()}),
		jwt.WithExpirationRequired(),
		jwt.WithTimeFunc(func() time.Time { return now }))
	if errors.Is(err, jwt.ErrTokenExpired) {
		return WSToken{}, kassa.Errorf(kassa.KindUnauthenticated, "token_expired", "The WebSocket token has expired; mint a new one.")
	}
	if err != nil || !c.Scope.Valid() || !c.Environment.Valid() {
		return WSToken{}, invalid
	}
	id, err := strconv.ParseInt(c.Subject, 10, 64)
	if err != nil || id <= 0 {
		return WSToken{}, invalid
	}
	return WSToken{KeyID: c.KeyID, CredentialVersion: c.CredentialVersion, MerchantID: id,
		Environment: c.Environment, Scope: c.Scope, ExpiresAt: c.ExpiresAt.Unix()}, nil
}
