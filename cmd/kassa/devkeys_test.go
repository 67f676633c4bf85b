package main

import (
	"net/http"
	"strings"
	"testing"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/store"
	"github.com/kassapay/kassa/store/storetest"
)

// TestDevKeysKept: a restart of serve --dev on the same data dir prints the keys
// of the last start, and they still work; once a key is revoked, or on a fresh
// data dir, the keys are new, and where earlier ones existed the banner says
// they no longer work. Both engines.
func TestDevKeysKept(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		if cfg.DataDir == "" {
			cfg.DataDir = t.TempDir() // one for every start below
		}
		first := runDev(t, cfg)
		merchantKey, commerceKey := first.field("merchant key:"), first.field("commerce key:")
		if merchantKey == "" || commerceKey == "" {
			t.Fatal("no keys printed")
		}
		first.stop(t)

		again := runDev(t, cfg)
		if got := again.field("merchant key:"); got != merchantKey {
			t.Errorf("merchant key after a restart = %q, want the first one %q", got, merchantKey)
		}
		if got := again.field("commerce key:"); got != commerceKey {
			t.Errorf("commerce key after a restart = %q, want the first one %q", got, commerceKey)
		}
		if !strings.Contains(again.out.String(), "(the same keys as the last start on this data dir)") {
			t.Error("the banner does not say the keys are the same")
		}
		wantStatus(t, call(t, "GET", again.url+"/api/v1/invoices?limit=1", map[string]string{"x-api-key": merchantKey}, nil, nil), http.StatusOK)

		// Revoked through the API: the next start makes new keys and says so.
		revokeDevKey(t, again.url, merchantKey)
		again.stop(t)
		third := runDev(t, cfg)
		if got := third.field("merchant key:"); got == merchantKey || got == "" {
			t.Errorf("merchant key after revoking it = %q, want a new one", got)
		}
		if !strings.Contains(third.out.String(), "(new keys: the keys an earlier start printed no longer work)") {
			t.Error("the banner does not say the earlier keys no longer work")
		}
		wantStatus(t, call(t, "GET", third.url+"/api/v1/invoices?limit=1", map[string]string{"x-api-key": third.field("merchant key:")}, nil, nil), http.StatusOK)
		third.stop(t)

		fresh := runDev(t, store.Config{DataDir: t.TempDir(), DatabaseURL: cfg.DatabaseURL})
		if got := fresh.field("merchant key:"); got == merchantKey || got == "" {
			t.Errorf("merchant key on a fresh data dir = %q, want a new one", got)
		}
		if strings.Contains(fresh.out.String(), "(the same keys") {
			t.Error("a fresh data dir's banner says its keys are the same")
		}
		// On PostgreSQL the database is the same one, with the earlier dev keys.
		if earlier := strings.Contains(fresh.out.String(), "(new keys:"); earlier != (cfg.DatabaseURL != "") {
			t.Errorf("a fresh data dir's banner says earlier keys no longer work: %v, want %v", earlier, cfg.DatabaseURL != "")
		}
		fresh.stop(t)
	})
}

// revokeDevKey revokes the demo merchant's key whose secret is secret, signed in
// to the dashboard API with the dev login.
func revokeDevKey(t *testing.T, url, secret string) {
	t.Helper()
	var login struct{ Token string }
	wantStatus(t, call(t, "POST", url+"/api/v1/auth/login", nil,
		map[string]string{"email": devEmail, "password": devPassword}, &login), http.StatusOK)
	jwt := map[string]string{"Authorization": "Bearer " + login.Token}
	var keys []struct {
		KeyID  string `json:"key_id"`
		Prefix string `json:"prefix"`
		Status string `json:"status"`
	}
	wantStatus(t, call(t, "GET", url+"/api/v1/api-keys?scope=merchant", jwt, nil, &keys), http.StatusOK)
	prefix, ok := kassa.ParseAPIKeySecret(secret)
	if !ok {
		t.Fatalf("%q is not a key", secret)
	}
	for _, k := range keys {
		if k.Status == "active" && k.Prefix == prefix {
			wantStatus(t, call(t, "POST", url+"/api/v1/api-keys/"+k.KeyID+"/revoke", jwt, nil, nil), http.StatusOK)
			return
		}
	}
	t.Fatalf("no active key of prefix %q among %+v", prefix, keys)
}
