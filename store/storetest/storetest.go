// Package storetest runs tests against every store engine available: SQLite always,
// PostgreSQL when KASSA_TEST_POSTGRES_DSN is set (for example
// postgres://postgres@127.0.0.1:5432/test?sslmode=disable).
package storetest

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"net/url"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" driver, to create test schemas
	"golang.org/x/crypto/bcrypt"

	"github.com/kassapay/kassa/sealed"
	"github.com/kassapay/kassa/store"
)

// SecretsKey is the key the test configs seal secrets under: one random key per
// test binary; Secrets is its keyring.
var (
	SecretsKey, _ = sealed.NewKey()
	Secrets       = sealed.NewKeyring(SecretsKey)
)

// PostgresDSNEnv names the environment variable that enables PostgreSQL tests.
const PostgresDSNEnv = "KASSA_TEST_POSTGRES_DSN"

// EachEngine runs fn as a subtest per engine: "sqlite" always, "postgres" when
// KASSA_TEST_POSTGRES_DSN is set. Each call gets a fresh empty database: a temp dir
// for SQLite; for PostgreSQL a fresh schema (t_<random>) that the DSN's search_path
// selects, dropped in t.Cleanup.
func EachEngine(t *testing.T, fn func(t *testing.T, cfg store.Config)) {
	t.Helper()
	t.Run("sqlite", func(t *testing.T) {
		fn(t, SQLiteConfig(t))
	})
	if os.Getenv(PostgresDSNEnv) != "" {
		t.Run("postgres", func(t *testing.T) {
			fn(t, PostgresConfig(t))
		})
	}
}

// SQLiteConfig returns a config for a fresh SQLite database in a temp dir.
func SQLiteConfig(t testing.TB) store.Config {
	t.Helper()
	return store.Config{DataDir: t.TempDir(), PasswordCost: bcrypt.MinCost, Secrets: Secrets}
}

// PostgresConfig returns a config for a fresh PostgreSQL schema, dropped in
// t.Cleanup. It skips the test when KASSA_TEST_POSTGRES_DSN is unset.
func PostgresConfig(t testing.TB) store.Config {
	t.Helper()
	dsn := os.Getenv(PostgresDSNEnv)
	if dsn == "" {
		t.Skip(PostgresDSNEnv + " is not set")
	}
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatalf("storetest: bad %s: %v", PostgresDSNEnv, err)
	}
	var b [8]byte
	_, _ = rand.Read(b[:])
	schema := "t_" + hex.EncodeToString(b[:])
	admin, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatalf("storetest: open postgres: %v", err)
	}
	ctx := context.Background()
	if _, err := admin.ExecContext(ctx, "CREATE SCHEMA "+schema); err != nil {
		admin.Close()
		t.Fatalf("storetest: create schema: %v", err)
	}
	t.Cleanup(func() {
		defer admin.Close()
		if _, err := admin.ExecContext(ctx, "DROP SCHEMA "+schema+" CASCADE"); err != nil {
			t.Errorf("storetest: drop schema %s: %v", schema, err)
		}
	})
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return store.Config{DatabaseURL: u.String(), PasswordCost: bcrypt.MinCost, Secrets: Secrets}
}

// Open opens cfg (PasswordCost defaulting to bcrypt.MinCost) and closes it in
// t.Cleanup; it fails the test on error.
func Open(t testing.TB, cfg store.Config) *store.DB {
	t.Helper()
	if cfg.PasswordCost == 0 {
		cfg.PasswordCost = bcrypt.MinCost
	}
	db, err := store.Open(context.Background(), cfg)
	if err != nil {
		t.Fatalf("storetest: open %s store: %v", engineOf(cfg), err)
	}
	t.Cleanup(func() {
		if err := db.Close(); err != nil {
			t.Errorf("storetest: close store: %v", err)
		}
	})
	return db
}

func engineOf(cfg store.Config) string {
	if cfg.DatabaseURL != "" {
		return "postgres"
	}
	return "sqlite"
}

// Clock is a settable clock for Config.Now. It is safe for concurrent use.
type Clock struct {
	mu  sync.Mutex
	now time.Time
}

// NewClock returns a clock stopped at t.
func NewClock(t time.Time) *Clock { return &Clock{now: t} }

// Now returns the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Advance moves the clock forward by d.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// Set sets the clock to t.
func (c *Clock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = t
}

// RawDB opens the engine's database of cfg straight, past the store, so a test
// can read and alter columns as they are at rest; it is closed in t.Cleanup.
func RawDB(t testing.TB, cfg store.Config) *sql.DB {
	t.Helper()
	driver, dsn := "pgx", cfg.DatabaseURL
	if dsn == "" {
		driver, dsn = "sqlite", filepath.Join(cfg.DataDir, "kassa.db")+"?_pragma=busy_timeout(5000)"
	}
	db, err := sql.Open(driver, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}
