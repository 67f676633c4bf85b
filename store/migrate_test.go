package store_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/kassapay/kassa/store"
	"github.com/kassapay/kassa/store/storetest"
)

func TestOpenAppliesMigrationsOnce(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		const n = 4
		dbs := make([]*store.DB, n)
		errs := make([]error, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				dbs[i], errs[i] = store.Open(context.Background(), cfg)
			}()
		}
		wg.Wait()
		for i := range n {
			if errs[i] != nil {
				t.Fatalf("Open #%d: %v", i, errs[i])
			}
			t.Cleanup(func() { dbs[i].Close() })
		}
		for _, db := range dbs {
			must(t, db.Ping(context.Background()))
			v, err := db.MigrationVersions(context.Background())
			must(t, err)
			if want := migrationsUpTo(32); !slices.Equal(v, want) {
				t.Fatalf("migration versions = %v, want %v", v, want)
			}
		}
		// Reopening applies nothing new and keeps the data.
		m := newFixture(t, cfg).m
		again := storetest.Open(t, cfg)
		if _, err := again.Merchant(context.Background(), m.ID); err != nil {
			t.Fatalf("merchant lost on reopen: %v", err)
		}
		if got, want := again.Engine(), map[bool]string{true: "postgres", false: "sqlite"}[cfg.DatabaseURL != ""]; got != want {
			t.Fatalf("Engine() = %q, want %q", got, want)
		}
	})
}

func TestOpenSQLiteDataDir(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "nested", "data")
	db := storetest.Open(t, store.Config{DataDir: dir})
	if db.Engine() != "sqlite" {
		t.Fatalf("Engine() = %q", db.Engine())
	}
	st, err := os.Stat(dir)
	must(t, err)
	if st.Mode().Perm() != 0o700 {
		t.Fatalf("data dir mode = %v, want 0700", st.Mode().Perm())
	}
	if _, err := os.Stat(filepath.Join(dir, "kassa.db")); err != nil {
		t.Fatalf("kassa.db missing: %v", err)
	}
}

func TestOpenRejectsBadConfig(t *testing.T) {
	for name, cfg := range map[string]store.Config{
		"no data dir":    {},
		"mysql url":      {DatabaseURL: "mysql://x"},
		"unreachable pg": {DatabaseURL: "postgres://nobody:secretpw@127.0.0.1:1/none?connect_timeout=1"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := store.Open(context.Background(), cfg)
			if err == nil {
				t.Fatal("Open succeeded")
			}
			if name == "unreachable pg" && strings.Contains(err.Error(), "secretpw") {
				t.Fatalf("error leaks the password: %v", err)
			}
		})
	}
}

// TestPostgresCreateForeignKeys: on PostgreSQL the rows a create writes (an
// invoice, its event) carry no merchant foreign key, whose check would lock the
// merchant's row in every create batch (migration 0023); other tables keep theirs.
func TestPostgresCreateForeignKeys(t *testing.T) {
	cfg := storetest.PostgresConfig(t)
	newFixture(t, cfg)
	raw := storetest.RawDB(t, cfg)
	for table, want := range map[string]int{"invoices": 0, "events": 0, "api_keys": 1, "webhook_endpoints": 1,
		"orders": 1, "checkout_estimates": 1, "checkout_addresses": 1, "dashboard_sessions": 1} {
		var n int
		must(t, raw.QueryRow(`SELECT count(*) FROM pg_constraint
			WHERE contype = 'f' AND conrelid = $1::regclass AND confrelid = 'merchants'::regclass`, table).Scan(&n))
		if n != want {
			t.Errorf("%s: %d foreign keys to merchants, want %d", table, n, want)
		}
	}
}

// migrationsUpTo is the versions 1 to last.
func migrationsUpTo(last int) []int {
	v := make([]int, last)
	for i := range v {
		v[i] = i + 1
	}
	return v
}
