package kassa_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/kassapay/kassa"
)

// TestNormalizeEmail: emails are trimmed and lower-cased, and an account's
// sign-in failures are counted under the same form the store looks it up by.
func TestNormalizeEmail(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"owner@example.com", "owner@example.com"},
		{"  Owner@Example.COM\t", "owner@example.com"},
		{"", ""},
	} {
		if got := kassa.NormalizeEmail(tc.in); got != tc.want {
			t.Errorf("NormalizeEmail(%q) = %q, want %q", tc.in, got, tc.want)
		}
		if !bytes.Equal(kassa.SignInAccount(tc.in), kassa.HashSecret(tc.want)) {
			t.Errorf("SignInAccount(%q) is not the hash of %q", tc.in, tc.want)
		}
	}
}

// TestIdleMessage: the idle sign-out message says the idle timeout in force.
func TestIdleMessage(t *testing.T) {
	want := "after " + kassa.IdleTimeoutText() + " without activity"
	if kassa.IdleTimeoutText() != "30 minutes" || !strings.Contains(kassa.AsError(kassa.ErrDashboardIdle()).Message, want) {
		t.Fatalf("idle text %q, message %q", kassa.IdleTimeoutText(), kassa.AsError(kassa.ErrDashboardIdle()).Message)
	}
}
