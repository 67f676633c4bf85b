package sealed_test

import (
	"encoding/base64"
	"encoding/hex"
	"errors"
	"strings"
	"testing"

	"github.com/kassapay/kassa/sealed"
)

// newKey returns a fresh key, failing the test on error.
func newKey(t *testing.T) (*sealed.Key, string) {
	t.Helper()
	k, text := sealed.NewKey()
	again, err := sealed.ParseKey(text)
	if err != nil {
		t.Fatalf("ParseKey(NewKey text): %v", err)
	}
	if again.ID() != k.ID() {
		t.Fatalf("id %s after parsing, want %s", again.ID(), k.ID())
	}
	return k, text
}

func TestSealOpenRoundTrip(t *testing.T) {
	k, _ := newKey(t)
	r := sealed.NewKeyring(k)
	for _, plain := range []string{"", "whsec_abc", strings.Repeat("x", 4096), "ünïcødé"} {
		v := r.Seal(plain, "webhook_endpoints.secret:we_1")
		if !sealed.IsSealed(v) || strings.Contains(v, plain) && plain != "" {
			t.Fatalf("Seal(%q) = %q: not sealed", plain, v)
		}
		if id, ok := sealed.KeyID(v); !ok || id != k.ID() {
			t.Fatalf("KeyID = %q, %v; want %q", id, ok, k.ID())
		}
		got, err := r.Open(v, "webhook_endpoints.secret:we_1")
		if err != nil || got != plain {
			t.Fatalf("Open = %q, %v; want %q", got, err, plain)
		}
	}
	if a, b := r.Seal("same", "p"), r.Seal("same", "p"); a == b {
		t.Fatal("two seals of one value are equal: nonce reused")
	}
}

func TestOpenRefuses(t *testing.T) {
	k, _ := newKey(t)
	other, _ := newKey(t)
	r := sealed.NewKeyring(k)
	v := r.Seal("whsec_secret", "merchants.totp_secret:7")
	id, body, _ := strings.Cut(strings.TrimPrefix(v, "kseal:v1:"), ":")
	ct, _ := base64.RawURLEncoding.DecodeString(body)
	flipped := append([]byte(nil), ct...)
	flipped[len(flipped)-1] ^= 1
	for _, c := range []struct {
		name, value, place string
		want               error
	}{
		{"tampered ciphertext", "kseal:v1:" + id + ":" + base64.RawURLEncoding.EncodeToString(flipped), "merchants.totp_secret:7", sealed.ErrCorrupt},
		{"truncated", "kseal:v1:" + id + ":" + body[:10], "merchants.totp_secret:7", sealed.ErrCorrupt},
		{"not base64", "kseal:v1:" + id + ":!!!", "merchants.totp_secret:7", sealed.ErrCorrupt},
		{"wrong row", v, "merchants.totp_secret:8", sealed.ErrCorrupt},
		{"wrong column", v, "webhook_endpoints.secret:7", sealed.ErrCorrupt},
		{"key id swapped", "kseal:v1:" + other.ID() + ":" + body, "merchants.totp_secret:7", sealed.ErrUnknownKey},
		{"other key", sealed.NewKeyring(other).Seal("x", "merchants.totp_secret:7"), "merchants.totp_secret:7", sealed.ErrUnknownKey},
		{"no fields", "kseal:v1", "merchants.totp_secret:7", sealed.ErrCorrupt},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := r.Open(c.value, c.place)
			if !errors.Is(err, c.want) {
				t.Fatalf("Open = %q, %v; want %v", got, err, c.want)
			}
			if strings.Contains(err.Error(), "whsec_secret") {
				t.Fatalf("error holds the secret: %v", err)
			}
		})
	}
	if _, err := r.Open("kseal:v9:"+id+":"+body, "p"); err == nil || !strings.Contains(err.Error(), "v9") {
		t.Fatalf("unknown version: %v", err)
	}
	if _, err := r.Open("whsec_clear", "p"); err == nil {
		t.Fatal("Open accepted a clear value")
	}
}

func TestUnknownKeyNamesBothIDs(t *testing.T) {
	k, _ := newKey(t)
	other, _ := newKey(t)
	v := sealed.NewKeyring(other).Seal("x", "p")
	_, err := sealed.NewKeyring(k).Open(v, "p")
	if err == nil || !strings.Contains(err.Error(), other.ID()) || !strings.Contains(err.Error(), k.ID()) {
		t.Fatalf("error %v should name key ids %s and %s", err, other.ID(), k.ID())
	}
}

func TestRotationKeyringOpensBoth(t *testing.T) {
	old, _ := newKey(t)
	next, _ := newKey(t)
	v := sealed.NewKeyring(old).Seal("secret", "p")
	r := sealed.NewKeyring(next, old)
	if got, err := r.Open(v, "p"); err != nil || got != "secret" {
		t.Fatalf("Open under the old key = %q, %v", got, err)
	}
	w := r.Seal("secret", "p")
	if id, _ := sealed.KeyID(w); id != next.ID() || r.CurrentID() != next.ID() {
		t.Fatalf("sealed under %s, want the new key %s", id, next.ID())
	}
	if _, err := sealed.NewKeyring(old).Open(w, "p"); !errors.Is(err, sealed.ErrUnknownKey) {
		t.Fatalf("old key opened a value of the new one: %v", err)
	}
}

func TestParseKey(t *testing.T) {
	raw := make([]byte, 32)
	for i := range raw {
		raw[i] = byte(i)
	}
	hexText, b64 := hex.EncodeToString(raw), base64.StdEncoding.EncodeToString(raw)
	a, err := sealed.ParseKey(hexText + "\n")
	if err != nil {
		t.Fatal(err)
	}
	b, err := sealed.ParseKey("  " + b64)
	if err != nil {
		t.Fatal(err)
	}
	if a.ID() != b.ID() {
		t.Fatalf("hex and base64 of one key give ids %s and %s", a.ID(), b.ID())
	}
	for _, bad := range []string{"", "short", hexText[:62], strings.Repeat("zz", 32), base64.StdEncoding.EncodeToString(raw[:31]) + "AAAA", "!" + b64[1:]} {
		if _, err := sealed.ParseKey(bad); err == nil {
			t.Errorf("ParseKey(%q) accepted", bad)
		}
	}
}
