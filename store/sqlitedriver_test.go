package store

import (
	"context"
	"database/sql"
	"sync"
	"testing"

	"modernc.org/libc"
	sqlite3 "modernc.org/sqlite/lib"
)

// TestDropConnMutex checks that the store's SQLite connections, writer and readers,
// run without a connection mutex (multi-thread mode), and that a connection
// opened by modernc's own registered driver still has one: the hook reaches the
// handle where it thinks it does.
func TestDropConnMutex(t *testing.T) {
	db := openSQLite(t)
	ctx := context.Background()
	for name, pool := range map[string]*sql.DB{"writer": db.w.DB, "reader": db.r.DB, "checkpointer": db.ckpt.conn} {
		if got := connMutex(t, ctx, pool); got != 0 {
			t.Errorf("%s: connection mutex %#x, want none", name, got)
		}
	}
	plain, err := sql.Open("sqlite", t.TempDir()+"/plain.db")
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	if connMutex(t, ctx, plain) == 0 {
		t.Error("a connection of the registered driver has no mutex: the test reads the wrong handle")
	}
	// The hook writes through the handle only when it is an open connection to
	// the file its DSN names.
	withHandle(t, ctx, plain, func(tls *libc.TLS, h uintptr) {
		if err := checkHandle(tls, h, "/elsewhere/plain.db?_pragma=busy_timeout(5000)"); err != nil {
			t.Errorf("checkHandle of the right file: %v", err)
		}
		if err := checkHandle(tls, h, "/elsewhere/kassa.db?_pragma=busy_timeout(5000)"); err == nil {
			t.Error("checkHandle accepted a handle of another file")
		}
	})
}

// connMutex returns sqlite3_db_mutex of one connection of pool.
func connMutex(t *testing.T, ctx context.Context, pool *sql.DB) uintptr {
	t.Helper()
	var m uintptr
	withHandle(t, ctx, pool, func(tls *libc.TLS, h uintptr) { m = sqlite3.Xsqlite3_db_mutex(tls, h) })
	return m
}

// withHandle runs fn with the sqlite3* of one connection of pool, held meanwhile.
func withHandle(t *testing.T, ctx context.Context, pool *sql.DB, fn func(tls *libc.TLS, h uintptr)) {
	t.Helper()
	conn, err := pool.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if err := conn.Raw(func(dc any) error {
		h, err := sqliteHandle(dc)
		if err != nil {
			return err
		}
		tls := libc.NewTLS()
		defer tls.Close()
		fn(tls, h)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}

// TestNoMutexReadersConcurrent runs many concurrent reads and writes through the
// store's pools: without the connection mutex, database/sql's
// one-goroutine-per-connection rule is what keeps each connection safe. It is a
// smoke test: SQLite's memory is outside what the race detector watches, so a
// connection used by two goroutines at once would show only as a failure or a
// crash, not as a race report.
func TestNoMutexReadersConcurrent(t *testing.T) {
	db := openSQLite(t)
	ctx := context.Background()
	if _, err := db.w.ExecContext(ctx, "CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)"); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for g := range 8 {
		wg.Add(2)
		go func() {
			defer wg.Done()
			for i := range 50 {
				if _, err := db.w.ExecContext(ctx, "INSERT INTO t (v) VALUES (?)", g*1000+i); err != nil {
					errs <- err
					return
				}
			}
		}()
		go func() {
			defer wg.Done()
			for range 50 {
				var n int
				if err := db.r.QueryRowContext(ctx, "SELECT count(*) FROM t").Scan(&n); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	var n int
	if err := db.r.QueryRowContext(ctx, "SELECT count(*) FROM t").Scan(&n); err != nil || n != 400 {
		t.Fatalf("rows %d (%v), want 400", n, err)
	}
}

// TestSQLiteCommitsSynced: the writer syncs the WAL at every commit
// (synchronous=FULL), so an answered write survives a power cut.
func TestSQLiteCommitsSynced(t *testing.T) {
	db := openSQLite(t)
	for pragma, want := range map[string]string{"synchronous": "2", "journal_mode": "wal"} {
		var got string
		if err := db.w.QueryRowContext(context.Background(), "PRAGMA "+pragma).Scan(&got); err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Errorf("writer's %s = %s, want %s", pragma, got, want)
		}
	}
}
