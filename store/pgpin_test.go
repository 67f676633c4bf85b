package store_test

import (
	"errors"
	"testing"
	"time"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/store"
	"github.com/kassapay/kassa/store/storetest"
)

// TestPostgresCreatesPinConnection: PostgreSQL's create writer keeps one
// connection of the pool while creates keep coming, also past a create that
// PostgreSQL refused and rolled back, and gives it back after a pause without
// creates.
func TestPostgresCreatesPinConnection(t *testing.T) {
	cfg := storetest.PostgresConfig(t)
	f := newFixture(t, cfg)
	taken, pid, inUse := store.PinCreates(t, f.db, 300*time.Millisecond)
	for i := range 10 {
		if err := pinCreate(f, ""); err != nil {
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
	// A live claim on the key: the create's transaction aborts on PostgreSQL's
	// check (KA002) and is rolled back; the connection is as good as before.
	claim(t, f, scope(f, "held"), "fp-other")
	if err := pinCreate(f, "held"); !errors.Is(err, kassa.ErrClaimLost) {
		t.Fatalf("create under a live claim: %v, want ErrClaimLost", err)
	}
	if n, now := taken(), pid(); n != 1 || now != pinned {
		t.Fatalf("after a refused create: %d connections taken, pinned backend %d; want 1 and %d", n, now, pinned)
	}

	waitUntil(t, "the idle pin to go back to the pool", func() bool { return inUse() == 0 && pid() == 0 })
	if err := pinCreate(f, ""); err != nil {
		t.Fatal(err)
	}
	if n := taken(); n != 2 {
		t.Fatalf("a create after the pin was given back: %d connections taken, want 2", n)
	}
}

// TestPostgresCreatesPinLost: after the pinned connection's backend is
// terminated, the one create that meets the dead connection fails, and the next
// takes a new connection.
func TestPostgresCreatesPinLost(t *testing.T) {
	cfg := storetest.PostgresConfig(t)
	f := newFixture(t, cfg)
	taken, pid, _ := store.PinCreates(t, f.db, time.Hour) // never given back for idling
	must(t, pinCreate(f, ""))
	killed := pid()
	raw := storetest.RawDB(t, cfg)
	var ok bool
	must(t, raw.QueryRow("SELECT pg_terminate_backend($1)", int64(killed)).Scan(&ok))
	waitUntil(t, "the pinned backend to end", func() bool {
		var n int
		must(t, raw.QueryRow("SELECT count(*) FROM pg_stat_activity WHERE pid = $1", int64(killed)).Scan(&n))
		return n == 0
	})
	if err := pinCreate(f, ""); err == nil {
		t.Fatal("the create on the terminated backend succeeded")
	}
	if err := pinCreate(f, ""); err != nil {
		t.Fatalf("create after the pinned backend was terminated: %v", err)
	}
	if n, now := taken(), pid(); n != 2 || now == 0 || now == killed {
		t.Fatalf("%d connections taken, pinned backend %d (terminated %d); want 2 and a new one", n, now, killed)
	}
}

// pinCreate creates an invoice for f's merchant, under key when it is not "".
func pinCreate(f *fixture, key string) error {
	_, err := keyedCreate(f, f.m, key)()
	return err
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
