package payment_test

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/payment"
)

func TestSessionSigner(t *testing.T) {
	s := payment.NewSessionSigner([]byte("server-secret"))
	id := kassa.NewTimeUUID(time.Now())
	token := kassa.NewSessionToken(id)
	if !strings.HasPrefix(token, "ps_") || len(token) < 40 {
		t.Fatalf("kassa.NewSessionToken() = %q", token)
	}
	if kassa.NewSessionToken(id) == token {
		t.Fatal("NewSessionToken repeated")
	}
	sig := s.Sign(token)
	m := hmac.New(sha256.New, []byte("server-secret"))
	m.Write([]byte(token))
	if want := hex.EncodeToString(m.Sum(nil)); sig != want {
		t.Fatalf("Sign = %s, want hex HMAC-SHA256 %s", sig, want)
	}
	other := payment.NewSessionSigner([]byte("other-secret"))
	tests := []struct {
		name   string
		signer payment.SessionSigner
		token  string
		sig    string
		want   bool
	}{
		{"own signature", s, token, sig, true},
		{"upper-case hex", s, token, strings.ToUpper(sig), true},
		{"other token", s, token + "x", sig, false},
		{"other secret", other, token, sig, false},
		{"one digit changed", s, token, flipHex(sig), false},
		{"truncated", s, token, sig[:63], false},
		{"extended", s, token, sig + "0", false},
		{"empty", s, token, "", false},
		{"padded", s, token, " " + sig, false},
	}
	for _, tt := range tests {
		if got := tt.signer.Verify(tt.token, tt.sig); got != tt.want {
			t.Errorf("%s: Verify = %v, want %v", tt.name, got, tt.want)
		}
	}
}

// flipHex changes the last hex digit of s.
func flipHex(s string) string {
	last := s[len(s)-1]
	if last == '0' {
		return s[:len(s)-1] + "1"
	}
	return s[:len(s)-1] + "0"
}

func TestPaymentURL(t *testing.T) {
	s := payment.NewSessionSigner([]byte("k"))
	const id = "123e4567-e89b-42d3-a456-426614174000"
	token := kassa.NewSessionToken(id)
	for _, public := range []string{"https://pay.example.com", "https://pay.example.com/", "http://127.0.0.1:8080"} {
		got := s.PaymentURL(public, id, token)
		want := strings.TrimSuffix(public, "/") + "/pay/" + id + "?session=" + token + "&signature=" + s.Sign(token)
		if got != want {
			t.Errorf("PaymentURL(%q) = %q, want %q", public, got, want)
		}
		u, err := url.Parse(got)
		if err != nil || u.Query().Get("session") != token || !s.Verify(token, u.Query().Get("signature")) {
			t.Errorf("PaymentURL(%q) = %q does not carry a valid session", public, got)
		}
	}
	// A token with characters that need escaping still round-trips through the URL.
	odd := "a+b/c=d&e"
	u, err := url.Parse(s.PaymentURL("https://x.example", id, odd))
	if err != nil || u.Query().Get("session") != odd || u.Path != "/pay/"+id {
		t.Errorf("PaymentURL does not escape the token: %v %v", u, err)
	}
}
