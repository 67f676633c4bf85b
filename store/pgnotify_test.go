package store_test

import (
	"bytes"
	"database/sql"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/apikeys"
	"github.com/kassapay/kassa/store/storetest"
)

// TestInstancesShareCommitsAndRevocations opens two stores on one PostgreSQL schema,
// as two kassa instances would: a commit through one wakes the other's followers
// (its webhook worker too: the commit may have queued deliveries), and a key revoked through one stops working on the other although its clock is
// frozen, so its cached row never ages out: only the notification drops it. Both
// hold after the listeners' connections are killed and come back.
func TestInstancesShareCommitsAndRevocations(t *testing.T) {
	cfg := storetest.PostgresConfig(t)
	f := newFixture(t, cfg)
	cfg.Now = storetest.NewClock(t0).Now
	logs := &logBuffer{}
	cfg.Log = slog.New(slog.NewTextHandler(logs, nil))
	b := storetest.Open(t, cfg)
	commits, deliveries := b.Commits(), b.Deliveries()

	awaitWake := func(t *testing.T) {
		t.Helper()
		for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); {
			f.invoice(t, f.m, 1000, nil)
			select {
			case <-commits:
				select {
				case <-deliveries: // signalled right after commits
					return
				case <-time.After(5 * time.Second):
					t.Fatal("a commit through one store woke the other's Commits, not its Deliveries")
				}
			case <-time.After(100 * time.Millisecond):
			}
		}
		t.Fatal("a commit through one store never woke the other's followers")
	}
	awaitWake(t)

	// Both listeners' connections are killed: they reconnect and wake again.
	admin, err := sql.Open("pgx", cfg.DatabaseURL)
	must(t, err)
	defer admin.Close()
	var killed int
	must(t, admin.QueryRowContext(f.ctx, `SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
		WHERE application_name = 'kassa listen ' || current_schema()`).Scan(&killed))
	if killed != 2 {
		t.Fatalf("terminated %d listener connections, want 2", killed)
	}
	// While it is down, the store says so (/readyz shows it); the first retry
	// waits 100 ms.
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(time.Millisecond) {
		if w := f.db.Warnings(); len(w) == 1 && strings.Contains(w[0], "postgres listener down since") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("warnings while the listener is down: %q", f.db.Warnings())
		}
	}
	for deadline := time.Now().Add(20 * time.Second); killed != 0; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the listeners did not reconnect")
		}
		must(t, admin.QueryRowContext(f.ctx, `SELECT 2 - count(*) FROM pg_stat_activity
			WHERE application_name = 'kassa listen ' || current_schema() AND query LIKE 'LISTEN%'`).Scan(&killed))
	}
	// The reconnect wakes the followers itself, then logs "listener back": once
	// the line is there, that wake-up is in commits and is drained below, so it
	// cannot pass for a commit's in awaitWake.
	for deadline := time.Now().Add(20 * time.Second); !strings.Contains(logs.String(), "postgres listener back"); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the store never logged its listener back: %q", logs.String())
		}
	}
	for deadline := time.Now().Add(20 * time.Second); len(f.db.Warnings()) != 0; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("warnings once the listener is back: %q", f.db.Warnings())
		}
	}
	for len(commits) > 0 {
		<-commits
	}
	awaitWake(t)

	k, secret, err := apikeys.Over(f.db).CreateAPIKey(f.ctx, f.m.ID, kassa.APIKeyCreate{Name: "key", Scope: kassa.ScopeMerchant, Environment: kassa.Devnet})
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
			for _, want := range []string{"postgres listener down", "postgres listener back"} {
				if !strings.Contains(logs.String(), want) {
					t.Errorf("the store logged %q, want %q", logs.String(), want)
				}
			}
			return
		}
		if time.Since(start) > 20*time.Second {
			t.Fatal("the revoked key still works on the other store")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// logBuffer collects a store's log lines; the listener writes while the test reads.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *logBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
