package kassa

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"strings"
	"time"
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
// login (see CredentialVersion).
type WSToken struct {
	KeyID string `json:"k"`
	// CredentialVersion is the merchant's credential version a token without a
	// KeyID was minted under; the token is refused (and its streams closed) once
	// the merchant's version moves on.
	CredentialVersion int64       `json:"cv,omitempty"`
	MerchantID        int64       `json:"m"`
	Environment       Environment `json:"e"`
	Scope             Scope       `json:"s"`
	ExpiresAt         int64       `json:"x"` // Unix seconds
}

// WSTokenSigner mints and checks WebSocket tokens: "wst_" + base64url(JSON claims) +
// "." + base64url(HMAC-SHA256). Its key is derived from the server secret for this
// one use, so a token can never pass for another signed value.
type WSTokenSigner struct{ key []byte }

// NewWSTokenSigner returns a signer keyed by the server secret.
func NewWSTokenSigner(secret []byte) WSTokenSigner {
	m := hmac.New(sha256.New, secret)
	m.Write([]byte("kassa websocket token v1"))
	return WSTokenSigner{key: m.Sum(nil)}
}

func (s WSTokenSigner) mac(payload string) []byte {
	m := hmac.New(sha256.New, s.key)
	m.Write([]byte(payload))
	return m.Sum(nil)
}

// Mint returns the signed token of t.
func (s WSTokenSigner) Mint(t WSToken) string {
	b, _ := json.Marshal(t)
	payload := base64.RawURLEncoding.EncodeToString(b)
	return "wst_" + payload + "." + base64.RawURLEncoding.EncodeToString(s.mac(payload))
}

// Parse checks a token's signature (in constant time) and expiry at now. Any
// failure is an unauthenticated error.
func (s WSTokenSigner) Parse(token string, now time.Time) (WSToken, error) {
	invalid := Errorf(KindUnauthenticated, "invalid_token", "Invalid or expired WebSocket token.")
	rest, ok := strings.CutPrefix(token, "wst_")
	payload, sig, ok2 := strings.Cut(rest, ".")
	if !ok || !ok2 {
		return WSToken{}, invalid
	}
	got, err := base64.RawURLEncoding.DecodeString(sig)
	if err != nil || !hmac.Equal(got, s.mac(payload)) {
		return WSToken{}, invalid
	}
	b, err := base64.RawURLEncoding.DecodeString(payload)
	var t WSToken
	if err != nil || json.Unmarshal(b, &t) != nil || !t.Scope.Valid() || !t.Environment.Valid() {
		return WSToken{}, invalid
	}
	if now.Unix() >= t.ExpiresAt {
		return WSToken{}, Errorf(KindUnauthenticated, "token_expired", "The WebSocket token has expired; mint a new one.")
	}
	return t, nil
}
