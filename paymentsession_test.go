package kassa

import (
	"strings"
	"testing"
)

func TestSessionInvoiceID(t *testing.T) {
	const id = "01a21daf-ca34-7712-9201-4971c85e8ae3"
	token := NewSessionToken(id)
	hexID := strings.ReplaceAll(id, "-", "")
	secret := token[len(token)-52:]
	tests := []struct {
		name  string
		token string
		want  string // "" when the token names no invoice
	}{
		{"new token", token, id},
		{"legacy token", "ps_" + RandomBase32(32), ""},
		{"upper-case id", "ps_" + strings.ToUpper(hexID) + "_" + secret, ""},
		{"no separator", "ps_" + hexID + "-" + secret, ""},
		{"other prefix", "px_" + hexID + "_" + secret, ""},
		{"short secret", "ps_" + hexID + "_" + secret[1:], ""},
		{"long secret", token + "a", ""},
		{"not hex", "ps_" + "g" + hexID[1:] + "_" + secret, ""},
		{"empty", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := SessionInvoiceID(tt.token)
			if got != tt.want || ok != (tt.want != "") {
				t.Fatalf("SessionInvoiceID(%q) = %q, %v; want %q", tt.token, got, ok, tt.want)
			}
		})
	}
	if len(secret) != 52 || token[len(token)-53] != '_' {
		t.Fatalf("token %q: want 32 random bytes in base32 after the id", token)
	}
}
