package store_test

import (
	"testing"
	"time"

	"kassa"
	"kassa/store/storetest"
)

// TestInstancesShareCommitsAndRevocations opens two stores on one PostgreSQL schema,
// as two kassa instances would: a commit through one wakes the other's followers,
// and a key revoked through one stops working on the other although its clock is
// frozen, so its cached row never ages out: only the notification drops it.
func TestInstancesShareCommitsAndRevocations(t *testing.T) {
	cfg := storetest.PostgresConfig(t)
	f := newFixture(t, cfg)
	cfg.Now = storetest.NewClock(t0).Now
	b := storetest.Open(t, cfg)
	commits := b.Commits()

	deadline := time.Now().Add(10 * time.Second)
	woken := false
	for !woken && time.Now().Before(deadline) {
		f.invoice(t, f.m, 1000, nil)
		select {
		case <-commits:
			woken = true
		case <-time.After(100 * time.Millisecond):
		}
	}
	if !woken {
		t.Fatal("a commit through one store never woke the other's followers")
	}

	k, secret, err := f.db.CreateAPIKey(f.ctx, f.m.ID, kassa.APIKeyCreate{Name: "key", Scope: kassa.ScopeMerchant, Environment: kassa.Devnet})
	must(t, err)
	if _, err := b.AuthenticateAPIKey(f.ctx, secret); err != nil {
		t.Fatalf("AuthenticateAPIKey before revoking: %v", err)
	}
	_, err = f.db.RevokeAPIKey(f.ctx, f.m.ID, k.ID, "")
	must(t, err)
	start := time.Now()
	for {
		_, err := b.AuthenticateAPIKey(f.ctx, secret)
		if err != nil {
			wantErr(t, err, kassa.KindUnauthenticated, "api_key_revoked")
			t.Logf("revocation reached the other store after %v", time.Since(start))
			return
		}
		if time.Now().After(deadline.Add(10 * time.Second)) {
			t.Fatal("the revoked key still works on the other store")
		}
		time.Sleep(5 * time.Millisecond)
	}
}
