package httpx

import (
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/kassapay/kassa"
)

func TestWSTokenRoundTrip(t *testing.T) {
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	s := NewWSTokenSigner([]byte("server secret"))
	tests := []WSToken{
		{KeyID: "key_1", MerchantID: 7, Environment: kassa.Devnet, Scope: kassa.ScopeMerchant, ExpiresAt: now.Unix() + WSTokenDefaultTTL},
		{KeyID: "", MerchantID: 1 << 40, Environment: kassa.Mainnet, Scope: kassa.ScopeCommerce, ExpiresAt: now.Unix() + 1},
		{MerchantID: 3, CredentialVersion: 4, Environment: kassa.Devnet, Scope: kassa.ScopeMerchant, ExpiresAt: now.Unix() + 60},
	}
	for _, want := range tests {
		tok := s.Mint(want)
		if !strings.HasPrefix(tok, "wst_") || strings.ContainsAny(tok, "+/= ") {
			t.Fatalf("token %q is not wst_ and URL-safe base64", tok)
		}
		got, err := s.Parse(tok, now)
		if err != nil {
			t.Fatalf("Parse(Mint(%+v)) = %v", want, err)
		}
		if got != want {
			t.Fatalf("Parse = %+v, want %+v", got, want)
		}
		// Another signer with the same secret accepts it: the key is derived, not random.
		if _, err := NewWSTokenSigner([]byte("server secret")).Parse(tok, now); err != nil {
			t.Fatalf("same secret, new signer: %v", err)
		}
	}
}

func TestWSTokenRefused(t *testing.T) {
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	secret := []byte("server secret")
	s := NewWSTokenSigner(secret)
	claims := WSToken{KeyID: "key_1", MerchantID: 7, Environment: kassa.Devnet, Scope: kassa.ScopeMerchant, ExpiresAt: now.Unix() + 60}
	tok := s.Mint(claims)
	parts := strings.Split(strings.TrimPrefix(tok, "wst_"), ".")
	head, payload, sig := parts[0], parts[1], parts[2]

	// A payload changed by someone without the key, claiming another merchant.
	var raw map[string]any
	b, _ := base64.RawURLEncoding.DecodeString(payload)
	if err := json.Unmarshal(b, &raw); err != nil {
		t.Fatal(err)
	}
	raw["sub"] = "8"
	fb, _ := json.Marshal(raw)
	forgedPayload := base64.RawURLEncoding.EncodeToString(fb)

	// Correctly signed claims that are not valid.
	badScope := claims
	badScope.Scope = "admin"
	badEnv := claims
	badEnv.Environment = "testnet"
	noMerchant := claims
	noMerchant.MerchantID = 0

	// A dashboard JWT is signed with the secret itself, not the derived key.
	dashboard, _ := jwt.NewWithClaims(jwt.SigningMethodHS256, jwt.RegisteredClaims{Subject: "7",
		ExpiresAt: jwt.NewNumericDate(now.Add(time.Hour))}).SignedString(secret)
	// An unsigned token ("alg": "none").
	unsigned, _ := jwt.NewWithClaims(jwt.SigningMethodNone, jwt.RegisteredClaims{Subject: "7",
		ExpiresAt: jwt.NewNumericDate(now.Add(time.Hour))}).SignedString(jwt.UnsafeAllowNoneSignatureType)

	tests := []struct {
		name  string
		token string
		at    time.Time
		code  string
	}{
		{"tampered payload", "wst_" + head + "." + forgedPayload + "." + sig, now, "invalid_token"},
		{"tampered signature", "wst_" + head + "." + payload + "." + flipFirst(sig), now, "invalid_token"},
		{"truncated signature", "wst_" + head + "." + payload + "." + sig[:len(sig)-2], now, "invalid_token"},
		{"no signature", "wst_" + head + "." + payload + ".", now, "invalid_token"},
		{"wrong secret", NewWSTokenSigner([]byte("other secret")).Mint(claims), now, "invalid_token"},
		{"empty secret", NewWSTokenSigner(nil).Mint(claims), now, "invalid_token"},
		{"no prefix", strings.TrimPrefix(tok, "wst_"), now, "invalid_token"},
		{"other prefix", "wsx_" + strings.TrimPrefix(tok, "wst_"), now, "invalid_token"},
		{"padded base64", tok + "=", now, "invalid_token"},
		{"signed bad scope", s.Mint(badScope), now, "invalid_token"},
		{"signed bad environment", s.Mint(badEnv), now, "invalid_token"},
		{"signed no merchant", s.Mint(noMerchant), now, "invalid_token"},
		{"dashboard token", "wst_" + dashboard, now, "invalid_token"},
		{"unsigned", "wst_" + unsigned, now, "invalid_token"},
		{"empty", "", now, "invalid_token"},
		{"garbage", "wst_!!!.???", now, "invalid_token"},
		{"bearer key instead", "sk_devnet_merchant_abc", now, "invalid_token"},
		{"expired exactly at ExpiresAt", tok, time.Unix(claims.ExpiresAt, 0), "token_expired"},
		{"expired later", tok, now.Add(time.Hour), "token_expired"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := s.Parse(tt.token, tt.at)
			wantUnauthenticated(t, err, tt.code)
			if got != (WSToken{}) {
				t.Fatalf("refused token returned claims %+v", got)
			}
		})
	}
	// A second before expiry it still works.
	if _, err := s.Parse(tok, time.Unix(claims.ExpiresAt-1, 0)); err != nil {
		t.Fatalf("one second before expiry: %v", err)
	}
}

// wantUnauthenticated fails t unless err is an unauthenticated *kassa.Error with code.
func wantUnauthenticated(t *testing.T, err error, code string) {
	t.Helper()
	e, ok := err.(*kassa.Error)
	if !ok {
		t.Fatalf("got %T %v, want *kassa.Error", err, err)
	}
	if e.Kind != kassa.KindUnauthenticated || e.Code != code || e.Message == "" {
		t.Fatalf("got kind %q code %q (%v), want unauthenticated %q", e.Kind, e.Code, e, code)
	}
}

// flipFirst changes the first base64url character of s to another valid one, so the
// first decoded byte differs (a last character may only differ in padding bits).
func flipFirst(s string) string {
	repl := "A"
	if s[0] == 'A' {
		repl = "B"
	}
	return repl + s[1:]
}
