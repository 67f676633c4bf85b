package store

import (
	"context"
	"errors"
	"fmt"
	"os"
)

// ErrSnapshotEngine is Snapshot's answer on PostgreSQL, which pg_dump backs up.
var ErrSnapshotEngine = errors.New("store: online snapshots are for SQLite; back PostgreSQL up with pg_dump (docs/operations.md)")

// Snapshot writes a consistent copy of the SQLite database to path (which must
// not exist) while the store stays in use, by other processes too: VACUUM INTO
// reads one snapshot of the database (WAL readers never block writers) and writes
// a compact, self-contained file without its WAL. The copy is made 0600.
func (db *DB) Snapshot(ctx context.Context, path string) error {
	if db.engine != EngineSQLite {
		return ErrSnapshotEngine
	}
	if _, err := os.Stat(path); err == nil {
		return fmt.Errorf("store: snapshot: %s already exists", path)
	}
	if _, err := db.w.ExecContext(ctx, "VACUUM INTO $1", path); err != nil {
		return fmt.Errorf("store: snapshot: %w", err)
	}
	if err := os.Chmod(path, 0o600); err != nil {
		return fmt.Errorf("store: snapshot: %w", err)
	}
	return nil
}

// IntegrityCheck runs SQLite's integrity check (a restored backup is checked
// before it is used); PostgreSQL answers nil.
func (db *DB) IntegrityCheck(ctx context.Context) error {
	if db.engine != EngineSQLite {
		return nil
	}
	var res string
	if err := db.r.QueryRowContext(ctx, "PRAGMA integrity_check").Scan(&res); err != nil {
		return fmt.Errorf("store: integrity check: %w", err)
	}
	if res != "ok" {
		return fmt.Errorf("store: integrity check: %s", res)
	}
	return nil
}
