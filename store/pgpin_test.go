package store_test

import (
	"testing"
	"time"

	"kassa"
	"kassa/store"
	"kassa/store/storetest"
)

// TestPostgresCreatesPinConnection: PostgreSQL's create writer keeps one
// connection of the pool while creates keep coming, gives it back after a pause
// without any, and after its backend is terminated takes another: at most the
// create that met the dead connection fails.
func TestPostgresCreatesPinConnection(t *testing.T) {
	cfg := storetest.PostgresConfig(t)
	f := newFixture(t, cfg)
	taken, pid, inUse := store.PinCreates(t, f.db, 300*time.Millisecond)
	create := func() error {
		_, _, err := f.db.CreateInvoice(f.ctx, principal(f.m), kassa.InvoiceCreate{Amount: 12_500}, nil)
		return err
	}
	for i := range 10 {
		if err := create(); err != nil {
			t.Fatalf("create %d: %v", i, err)
		}
	}
	if n := taken(); n != 1 {
		t.Fatalf("10 creates in a row took %d connections from the pool, want 1", n)
	}
	pinned := pid()
	if pinned == 0 {
		t.Fatal("no connection pinned after the creates")
	}
	waitUntil(t, "the pinned connection to be the only one in use", func() bool { return inUse() == 1 })

	waitUntil(t, "the idle pin to go back to the pool", func() bool { return inUse() == 0 && pid() == 0 })
	if err := create(); err != nil {
		t.Fatal(err)
	}
	if n := taken(); n != 2 {
		t.Fatalf("a create after the pin was given back: %d connections taken, want 2", n)
	}

	raw := storetest.RawDB(t, cfg)
	killed := pid()
	var ok bool
	must(t, raw.QueryRow("SELECT pg_terminate_backend($1)", int64(killed)).Scan(&ok))
	waitUntil(t, "the pinned backend to end", func() bool {
		var n int
		must(t, raw.QueryRow("SELECT count(*) FROM pg_stat_activity WHERE pid = $1", int64(killed)).Scan(&n))
		return n == 0
	})
	first := create() // may meet the dead connection
	if err := create(); err != nil {
		t.Fatalf("create after the pinned backend was terminated: %v (the one before: %v)", err, first)
	}
	if now := pid(); now == 0 || now == killed {
		t.Fatalf("pinned backend %d after %d was terminated", now, killed)
	}
}

// waitUntil waits up to 10 s for cond.
func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}
