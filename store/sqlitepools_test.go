package store

import (
	"context"
	"sync"
	"testing"
)

// TestSQLiteReadersConcurrent runs many concurrent reads and writes through the
// store's pools: the writer's one connection and the readers' pool.
func TestSQLiteReadersConcurrent(t *testing.T) {
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
