package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/kassapay/kassa/internal/sqlitemt"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// privateFiles makes dir 0700 and the database at path 0600, whatever existed
// before: it creates the file 0600 when missing, so SQLite opens it rather than
// creating it under the umask, and chmods an existing one with its -wal and -shm.
// SQLite creates -wal and -shm later with the database file's mode, so they are
// 0600 too; no umask is changed (it is the whole process's).
func privateFiles(dir, path string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("store: create data dir: %w", err)
	}
	if err := os.Chmod(dir, 0o700); err != nil {
		return fmt.Errorf("store: data dir: %w", err)
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("store: create database file: %w", err)
	}
	f.Close()
	for _, p := range []string{path, path + "-wal", path + "-shm"} {
		if err := os.Chmod(p, 0o600); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("store: database file: %w", err)
		}
	}
	return nil
}

// sqlitePragmas are applied to every SQLite writer connection. synchronous(FULL)
// syncs the WAL at every commit, so an answered write (a create's 201) survives a
// power cut or a kernel crash, not only a crash of the process; NORMAL syncs only
// at checkpoints, and a power cut may roll back the last commits. The group commit
// shares one sync among the transactions committed together; FULL cost 15 % of
// SQLite creates per second under load (docs/performance.md, "Durable commits"). temp_store(MEMORY) keeps the statement journal in memory: the group
// commit runs transactions that share a commit in savepoints, whose first change
// to each page copies that page to the journal, and in a file that meant open,
// write and close system calls per group.
const sqlitePragmas = "_pragma=busy_timeout(5000)&_pragma=journal_mode(WAL)&_pragma=synchronous(FULL)&_pragma=foreign_keys(1)&_pragma=temp_store(MEMORY)&" +
	sqliteCheckpoint

// sqliteCheckpoint is the writer's own checkpoint threshold, 16,000 pages (64
// MiB) instead of SQLite's 1,000: a backstop. The checkpointer (checkpoint.go)
// copies the WAL into the database file beside the writer every half second, so
// a checkpoint inside the writer's commit, which stalls every create queued behind
// it, is rare and has little left to copy.
const sqliteCheckpoint = "_pragma=wal_autocheckpoint(16000)"

// sqliteMmap is the pragma that maps up to size bytes of the database file into
// memory (Config.SQLiteMmapSize; 0: none). The page cache stays at SQLite's
// default (2 MiB a connection): a larger cache cost more than it saved, since
// SQLite walks the whole cache at the end of every write transaction (a tenth of a
// create's CPU with 64 MiB), and a reader's cache is emptied whenever another
// connection wrote (docs/performance.md, "Tried and not kept"). Pages read through
// a mapping count in the process's resident memory; pages read with pread stay in
// the kernel's page cache, which is why the default maps nothing
// (docs/performance.md, "Memory after a create load").
func sqliteMmap(size int64) string { return fmt.Sprintf("_pragma=mmap_size(%d)", max(size, 0)) }

// sqliteReaderCache is a read-only connection's page cache: 512 KiB, a quarter of
// SQLite's default. A reader's cache is emptied whenever another connection has
// written, so under creates it is refilled from the kernel's page cache at every
// read either way, while its allocations stayed in the process: after 60 s of
// creates the default held 96-102 MiB resident at the high-water mark and this
// 88-90 MiB, with no change in a create's or a list's CPU (docs/performance.md,
// "Memory after a create load"). The writer keeps the default: its cache survives
// between its own transactions.
const sqliteReaderCache = "_pragma=cache_size(-512)"

// openSQLiteDB returns a pool of connections of modernc's SQLite driver, as
// shipped (serialized mode), to dsn: for the checkpointer, which reads no
// columns to speak of, and tests.
func openSQLiteDB(dsn string) *sql.DB { return sqlitemt.Open(dsn, false) }

// openSQLite opens the SQLite database kassa.db in dir: the writer's connection and
// its group commit, the checkpointer, and the pool of read-only connections. The
// writer's and the readers' connections run without a connection mutex when
// multi is set (internal/sqlitemt).
func (db *DB) openSQLite(ctx context.Context, dir string, mmapSize int64, multi bool) error {
	db.engine = EngineSQLite
	if dir == "" {
		return errors.New("store: DataDir is required for SQLite")
	}
	path := filepath.Join(dir, "kassa.db")
	// A '?' in the path would be taken for the start of the DSN's parameters.
	if strings.ContainsRune(path, '?') {
		return fmt.Errorf("store: data dir path must not contain '?'")
	}
	if err := privateFiles(dir, path); err != nil {
		return err
	}
	w := sqlitemt.Open(path+"?"+sqlitePragmas+"&"+sqliteMmap(mmapSize)+"&_txlock=immediate", multi)
	db.w = newPool(w, true)
	db.w.endpoints = &endpointCache{}
	w.SetMaxOpenConns(1)
	w.SetMaxIdleConns(1)
	w.SetConnMaxIdleTime(0)
	w.SetConnMaxLifetime(0)
	if err := pingBusy(ctx, w); err != nil {
		return fmt.Errorf("store: open sqlite: %w", err)
	}
	if err := db.migrate(ctx); err != nil {
		return err
	}
	db.group = newGroupCommit(db.w)
	var err error
	if db.ckpt, err = startCheckpointer(path, checkpointEvery, db.group.groups.Load, db.log); err != nil {
		return err
	}
	r := sqlitemt.Open(path+"?"+sqliteReaderCache+"&_pragma=busy_timeout(5000)&_pragma=foreign_keys(1)&_pragma=query_only(1)&"+sqliteMmap(mmapSize), multi)
	db.r = newPool(r, true)
	n := max(4, runtime.GOMAXPROCS(0))
	r.SetMaxOpenConns(n)
	r.SetMaxIdleConns(n)
	if err := r.PingContext(ctx); err != nil {
		return fmt.Errorf("store: open sqlite readers: %w", err)
	}
	// The mode asked for is the mode the connections run in, or the store does
	// not open: a driver that ignored the hook would leave every read paying
	// for the mutex unnoticed.
	for name, p := range map[string]*sql.DB{"writer": w, "reader": r} {
		if serialized, err := sqlitemt.Serialized(ctx, p); err != nil || serialized == multi {
			return fmt.Errorf("store: sqlite %s connection in serialized mode %v, want %v (%v)", name, serialized, !multi, err)
		}
	}
	return nil
}

// pingBusy opens the first connection, retrying while SQLite answers SQLITE_BUSY:
// switching a new database file to WAL takes an exclusive lock and does not wait
// for busy_timeout, so processes opening one new file together collide there.
func pingBusy(ctx context.Context, w *sql.DB) error {
	for attempt := 0; ; attempt++ {
		err := w.PingContext(ctx)
		var se *sqlite.Error
		if err == nil || !errors.As(err, &se) || se.Code()&0xff != sqlite3.SQLITE_BUSY || attempt == 100 {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(10 * time.Millisecond):
		}
	}
}
