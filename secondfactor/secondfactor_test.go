package secondfactor

import (
	"net/url"
	"testing"
	"time"

	"github.com/pquerna/otp/totp"
)

// code is the code of secret at t, as an authenticator app shows it.
func code(secret string, t time.Time) (string, error) {
	return totp.GenerateCodeCustom(secret, t, opts)
}

// TestKeyAndURI: a fresh secret is 160 bits of base32, and its URI names Kassa,
// the account and the secret, as authenticator apps read it.
func TestKeyAndURI(t *testing.T) {
	k, err := New("owner@example.com")
	if err != nil || len(k.Secret) != 32 {
		t.Fatalf("New: %+v, %v", k, err)
	}
	uri, err := URI("owner@example.com", k.Secret)
	if err != nil {
		t.Fatal(err)
	}
	u, err := url.Parse(uri)
	q := u.Query()
	if err != nil || u.Scheme != "otpauth" || u.Host != "totp" || u.Path != "/Kassa:owner@example.com" ||
		q.Get("issuer") != "Kassa" || q.Get("secret") != k.Secret || q.Get("digits") != "6" || q.Get("period") != "30" {
		t.Fatalf("URI %q", uri)
	}
	if uri != k.URI {
		t.Fatalf("URI %q, New's %q", uri, k.URI)
	}
	if _, err := URI("owner@example.com", "not base32!"); err == nil {
		t.Fatal("a bad secret made a URI")
	}
}

// TestStep: a code matches its own step and one either side, with spaces, never
// two steps away, a wrong length or an empty secret.
func TestStep(t *testing.T) {
	const secret = "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP"
	now := time.Unix(1_800_000_010, 0) // 10 s into step 60000000
	at := func(d time.Duration) string {
		t.Helper()
		c, err := code(secret, now.Add(d))
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	cur := now.Unix() / 30
	for _, tc := range []struct {
		name, secret, code string
		step               int64
		ok                 bool
	}{
		{"now", secret, at(0), cur, true},
		{"one step behind", secret, at(-30 * time.Second), cur - 1, true},
		{"one step ahead", secret, at(30 * time.Second), cur + 1, true},
		{"with a space", secret, at(0)[:3] + " " + at(0)[3:], cur, true},
		{"two steps behind", secret, at(-60 * time.Second), 0, false},
		{"two steps ahead", secret, at(60 * time.Second), 0, false},
		{"too short", secret, at(0)[:5], 0, false},
		{"no secret", "", at(0), 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			step, ok := Step(tc.secret, tc.code, now)
			if ok != tc.ok || step != tc.step {
				t.Fatalf("Step = %d, %v; want %d, %v", step, ok, tc.step, tc.ok)
			}
		})
	}
}
