package kassa

import (
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"
	"time"
)

func TestWSTokenRoundTrip(t *testing.T) {
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	s := NewWSTokenSigner([]byte("server secret"))
	tests := []WSToken{
		{KeyID: "key_1", MerchantID: 7, Environment: Devnet, Scope: ScopeMerchant, ExpiresAt: now.Unix() + WSTokenDefaultTTL},
		{KeyID: "", MerchantID: 1 << 40, Environment: Mainnet, Scope: ScopeCommerce, ExpiresAt: now.Unix() + 1},
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
	s := NewWSTokenSigner([]byte("server secret"))
	claims := WSToken{KeyID: "key_1", MerchantID: 7, Environment: Devnet, Scope: ScopeMerchant, ExpiresAt: now.Unix() + 60}
	tok := s.Mint(claims)
	payload, sig, _ := strings.Cut(strings.TrimPrefix(tok, "wst_"), ".")

	// A payload re-signed by someone without the key, claiming another merchant.
	forged := claims
	forged.MerchantID = 8
	fb, _ := json.Marshal(forged)
	forgedPayload := base64.RawURLEncoding.EncodeToString(fb)

	// Correctly signed claims that are not valid.
	badScope := claims
	badScope.Scope = "admin"
	badEnv := claims
	badEnv.Environment = "testnet"

	tests := []struct {
		name  string
		token string
		at    time.Time
		code  string
	}{
		{"tampered payload", "wst_" + forgedPayload + "." + sig, now, "invalid_token"},
		{"tampered signature", "wst_" + payload + "." + flipFirst(sig), now, "invalid_token"},
		{"signature of another payload", "wst_" + payload + "." + strings.SplitN(s.Mint(forged), ".", 2)[1], now, "invalid_token"},
		{"truncated signature", "wst_" + payload + "." + sig[:len(sig)-2], now, "invalid_token"},
		{"no signature", "wst_" + payload + ".", now, "invalid_token"},
		{"no dot", "wst_" + payload + sig, now, "invalid_token"},
		{"wrong secret", NewWSTokenSigner([]byte("other secret")).Mint(claims), now, "invalid_token"},
		{"empty secret", NewWSTokenSigner(nil).Mint(claims), now, "invalid_token"},
		{"no prefix", payload + "." + sig, now, "invalid_token"},
		{"other prefix", "wsx_" + payload + "." + sig, now, "invalid_token"},
		{"padded base64", "wst_" + payload + "." + sig + "=", now, "invalid_token"},
		{"signed garbage payload", "wst_bm90IGpzb24." + base64.RawURLEncoding.EncodeToString(s.mac("bm90IGpzb24")), now, "invalid_token"},
		{"signed bad scope", s.Mint(badScope), now, "invalid_token"},
		{"signed bad environment", s.Mint(badEnv), now, "invalid_token"},
		{"empty", "", now, "invalid_token"},
		{"garbage", "wst_!!!.???", now, "invalid_token"},
		{"bearer key instead", "sk_devnet_merchant_abc", now, "invalid_token"},
		{"expired exactly at ExpiresAt", tok, time.Unix(claims.ExpiresAt, 0), "token_expired"},
		{"expired later", tok, now.Add(time.Hour), "token_expired"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := s.Parse(tt.token, tt.at)
			wantCode(t, err, KindUnauthenticated, tt.code, "")
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

// flipFirst changes the first base64url character of s to another valid one, so the
// first decoded byte differs (a last character may only differ in padding bits).
func flipFirst(s string) string {
	repl := "A"
	if s[0] == 'A' {
		repl = "B"
	}
	return repl + s[1:]
}
