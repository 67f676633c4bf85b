package store_test

import (
	"database/sql"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/sealed"
	"github.com/kassapay/kassa/store"
	"github.com/kassapay/kassa/store/storetest"
)

// atRest returns one text column as stored.
func atRest(t *testing.T, db *sql.DB, query string, args ...any) string {
	t.Helper()
	var s sql.Null[string]
	if err := db.QueryRowContext(t.Context(), query, args...).Scan(&s); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return s.V
}

// wantSealed checks that a stored value is sealed under the key id and does not
// hold the secret.
func wantSealed(t *testing.T, what, stored, secret, keyID string) {
	t.Helper()
	if id, ok := sealed.KeyID(stored); !ok || id != keyID || strings.Contains(stored, secret) {
		t.Fatalf("%s at rest = %q, want sealed under key %s", what, stored, keyID)
	}
}

func TestSecretsSealedAtRest(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		f := newFixture(t, cfg)
		raw := storetest.RawDB(t, cfg)
		p := principal(f.m)
		first := f.endpoint(t, p, "hook", "*")
		ep, err := f.db.RotateWebhookSecret(f.ctx, p, first.ID)
		must(t, err)
		id := storetest.Secrets.CurrentID()
		wantSealed(t, "secret", atRest(t, raw, "SELECT secret FROM webhook_endpoints WHERE id = $1", ep.ID), ep.Secret, id)
		wantSealed(t, "previous_secret", atRest(t, raw, "SELECT previous_secret FROM webhook_endpoints WHERE id = $1", ep.ID), first.Secret, id)
		got, err := f.db.WebhookEndpoint(f.ctx, p, ep.ID)
		must(t, err)
		if got.Secret != ep.Secret || got.PreviousSecret != first.Secret {
			t.Fatal("secrets read back differ from those created")
		}

		// A delivery is signed with both secrets; the receiver verifies either.
		f.invoice(t, f.m, 1000, nil)
		job := f.claim(t, time.Minute, 1)[0]
		headers, err := kassa.WebhookHeaders(job.Secrets, job.Delivery.EventID, time.Now(), job.Payload) // the verifier's clock
		must(t, err)
		h := http.Header{}
		for k, v := range headers {
			h.Set(k, v)
		}
		for _, secret := range []string{ep.Secret, first.Secret} {
			wh, err := standardwebhooks.NewWebhook(secret)
			must(t, err)
			if err := wh.Verify(job.Payload, h); err != nil {
				t.Fatalf("signature does not verify: %v", err)
			}
		}

		const totp = "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP"
		must(t, f.db.EnableTOTP(f.ctx, f.m.ID, totp, 1))
		wantSealed(t, "totp_secret", atRest(t, raw, "SELECT totp_secret FROM merchants WHERE id = $1", f.m.ID), totp, id)
		if s, err := f.db.TOTPSecret(f.ctx, f.m.ID); err != nil || s != totp {
			t.Fatalf("TOTPSecret = %q, %v", s, err)
		}

		// A value copied to another row does not open there.
		other := f.merchant(t, "other@example.com")
		stored := atRest(t, raw, "SELECT totp_secret FROM merchants WHERE id = $1", f.m.ID)
		if _, err := raw.ExecContext(f.ctx, "UPDATE merchants SET totp_secret = $1 WHERE id = $2", stored, other.ID); err != nil {
			t.Fatal(err)
		}
		if _, err := f.db.TOTPSecret(f.ctx, other.ID); !errors.Is(err, sealed.ErrCorrupt) {
			t.Fatalf("a secret moved to another merchant opened: %v", err)
		}
	})
}

func TestSealSecretsMigratesAndRotates(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		f := newFixture(t, cfg)
		raw := storetest.RawDB(t, cfg)
		mainnet := kassa.Principal{MerchantID: f.m.ID, Environment: kassa.Mainnet}
		ep := f.endpoint(t, mainnet, "hook", "*")
		// Rows from before sealing hold their secrets in clear.
		const clearSecret, totp = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "JBSWY3DPEHPK3PXP"
		for _, q := range []struct {
			query string
			args  []any
		}{
			{"UPDATE webhook_endpoints SET secret = $1 WHERE id = $2", []any{clearSecret, ep.ID}},
			{"UPDATE merchants SET totp_secret = $1 WHERE id = $2", []any{totp, f.m.ID}},
		} {
			if _, err := raw.ExecContext(f.ctx, q.query, q.args...); err != nil {
				t.Fatal(err)
			}
		}
		if got, err := f.db.WebhookEndpoint(f.ctx, mainnet, ep.ID); err != nil || got.Secret != clearSecret {
			t.Fatalf("clear secret read back = %v, %v", got, err)
		}
		pass, err := f.db.SealSecrets(f.ctx)
		must(t, err)
		if pass.Sealed != 2 || pass.Kept != 0 || len(pass.Unreadable) != 0 {
			t.Fatalf("first pass = %+v, want 2 sealed", pass)
		}
		oldID := storetest.Secrets.CurrentID()
		wantSealed(t, "secret", atRest(t, raw, "SELECT secret FROM webhook_endpoints WHERE id = $1", ep.ID), clearSecret, oldID)
		wantSealed(t, "totp_secret", atRest(t, raw, "SELECT totp_secret FROM merchants WHERE id = $1", f.m.ID), totp, oldID)
		if pass, err = f.db.SealSecrets(f.ctx); err != nil || pass.Sealed != 0 || pass.Kept != 2 {
			t.Fatalf("second pass = %+v, %v; want 2 kept", pass, err)
		}

		// Rotation: the same data under a keyring of a new key and the old one.
		newKey, _ := sealed.NewKey()
		rotating := cfg
		rotating.Secrets = sealed.NewKeyring(newKey, storetest.SecretsKey)
		db := storetest.Open(t, rotating)
		for i, want := range []int{2, 0} { // a re-run finds nothing left to do
			pass, err := db.SealSecrets(f.ctx)
			if err != nil || pass.Sealed != want || pass.Sealed+pass.Kept != 2 || len(pass.Unreadable) != 0 {
				t.Fatalf("rotation run %d = %+v, %v; want %d sealed", i, pass, err, want)
			}
		}
		wantSealed(t, "secret", atRest(t, raw, "SELECT secret FROM webhook_endpoints WHERE id = $1", ep.ID), clearSecret, newKey.ID())
		after := cfg
		after.Secrets = sealed.NewKeyring(newKey)
		if s, err := storetest.Open(t, after).TOTPSecret(f.ctx, f.m.ID); err != nil || s != totp {
			t.Fatalf("TOTPSecret under the new key = %q, %v", s, err)
		}

		// The old key alone opens nothing now, and says which ones.
		pass, err = f.db.SealSecrets(f.ctx)
		must(t, err)
		if pass.Sealed != 0 || len(pass.Unreadable) != 2 {
			t.Fatalf("old key pass = %+v, want 2 unreadable", pass)
		}
		for _, u := range pass.Unreadable {
			if !errors.Is(u.Err, sealed.ErrUnknownKey) {
				t.Fatalf("%s: %v, want an unknown key", u.Place, u.Err)
			}
		}
		if u := pass.Unreadable[0]; u.Place != "webhook_endpoints.secret:"+ep.ID || u.Environment != kassa.Mainnet {
			t.Fatalf("unreadable %+v, want the mainnet endpoint's secret", u)
		}
		if _, err := f.db.TOTPSecret(f.ctx, f.m.ID); !errors.Is(err, sealed.ErrUnknownKey) {
			t.Fatalf("TOTPSecret under the old key: %v", err)
		}
	})
}
