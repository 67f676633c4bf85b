package store

import (
	"context"
	"database/sql"
	"embed"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strconv"
	"strings"
)

// migrationFS holds the hand-written migrations, one folder per dialect. A file is
// named NNNN_description.sql; NNNN is its version.
//
//go:embed migrations/sqlite/*.sql migrations/postgres/*.sql
var migrationFS embed.FS

type migration struct {
	version int
	name    string
	sql     string
}

// migrations returns the dialect's migrations in version order.
func migrations(dialect string) ([]migration, error) {
	dir := "migrations/" + dialect
	entries, err := fs.ReadDir(migrationFS, dir)
	if err != nil {
		return nil, err
	}
	var out []migration
	for _, e := range entries {
		name := e.Name()
		num, _, ok := strings.Cut(name, "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil || !strings.HasSuffix(name, ".sql") {
			return nil, fmt.Errorf("store: bad migration file name %q", name)
		}
		b, err := migrationFS.ReadFile(path.Join(dir, name))
		if err != nil {
			return nil, err
		}
		out = append(out, migration{version: v, name: name, sql: string(b)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].version < out[j].version })
	for i := 1; i < len(out); i++ {
		if out[i].version == out[i-1].version {
			return nil, fmt.Errorf("store: duplicate migration version %d", out[i].version)
		}
	}
	return out, nil
}

const createSchemaMigrations = `CREATE TABLE IF NOT EXISTS schema_migrations (
    version    BIGINT PRIMARY KEY,
    name       TEXT NOT NULL,
    applied_at BIGINT NOT NULL
)`

// migrate applies the migrations not yet applied, each in its own transaction. On
// PostgreSQL it holds a session advisory lock (per schema) on one dedicated
// connection for the whole run, so instances starting together apply each migration
// once. On SQLite every transaction begins IMMEDIATE, which serializes processes, and
// each migration re-checks whether it is applied inside its transaction.
func (db *DB) migrate(ctx context.Context) error {
	ms, err := migrations(db.engine)
	if err != nil {
		return err
	}
	conn, err := db.w.Conn(ctx)
	if err != nil {
		return fmt.Errorf("store: migrate: %w", err)
	}
	defer conn.Close()
	if db.engine == EnginePostgres {
		const lockKey = `hashtext('kassa.migrate:' || current_schema())`
		if _, err := conn.ExecContext(ctx, "SELECT pg_advisory_lock("+lockKey+")"); err != nil {
			return fmt.Errorf("store: migrate: lock: %w", err)
		}
		defer func() {
			// Unlock with a fresh context: the caller's may be done.
			_, _ = conn.ExecContext(context.WithoutCancel(ctx), "SELECT pg_advisory_unlock("+lockKey+")")
		}()
	}
	if _, err := conn.ExecContext(ctx, createSchemaMigrations); err != nil {
		return fmt.Errorf("store: migrate: %w", err)
	}
	for _, m := range ms {
		if err := db.applyMigration(ctx, conn, m); err != nil {
			return err
		}
	}
	return nil
}

func (db *DB) applyMigration(ctx context.Context, conn *sql.Conn, m migration) error {
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("store: migrate %s: %w", m.name, err)
	}
	defer func() { _ = tx.Rollback() }()
	var n int
	if err := tx.QueryRowContext(ctx, "SELECT COUNT(*) FROM schema_migrations WHERE version = $1", m.version).Scan(&n); err != nil {
		return fmt.Errorf("store: migrate %s: %w", m.name, err)
	}
	if n > 0 {
		return nil
	}
	if _, err := tx.ExecContext(ctx, m.sql); err != nil {
		return fmt.Errorf("store: migrate %s: %w", m.name, err)
	}
	if _, err := tx.ExecContext(ctx, "INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)",
		m.version, m.name, micros(db.clock())); err != nil {
		return fmt.Errorf("store: migrate %s: %w", m.name, err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("store: migrate %s: %w", m.name, err)
	}
	return nil
}

// MigrationVersions returns the versions recorded in schema_migrations, in order.
func (db *DB) MigrationVersions(ctx context.Context) ([]int, error) {
	rows, err := db.r.QueryContext(ctx, "SELECT version FROM schema_migrations ORDER BY version")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []int
	for rows.Next() {
		var v int
		if err := rows.Scan(&v); err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}
