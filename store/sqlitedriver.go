package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"unsafe"

	"modernc.org/libc"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// sqliteDriver opens every SQLite connection of the store (writer, readers,
// checkpointer). It is modernc's driver with one change (dropConnMutex):
// connections run in SQLite's multi-thread mode, not its serialized one. The rule
// that makes this safe is database/sql's: one goroutine at a time per connection.
// Code that reaches a driver connection (sql.Conn.Raw) must not keep it or use it
// outside Raw, nor call NewBackup, Serialize or Deserialize on a busy one.
var sqliteDriver = func() *sqlite.Driver {
	d := &sqlite.Driver{}
	d.RegisterConnectionHook(dropConnMutex)
	return d
}()

// openSQLiteDB returns a pool of sqliteDriver's connections to dsn.
func openSQLiteDB(dsn string) *sql.DB {
	return sql.OpenDB(sqliteConnector{dsn})
}

// sqliteConnector is a driver.Connector of sqliteDriver's connections to one DSN.
type sqliteConnector struct{ dsn string }

func (c sqliteConnector) Connect(context.Context) (driver.Conn, error) {
	return sqliteDriver.Open(c.dsn)
}
func (c sqliteConnector) Driver() driver.Driver { return sqliteDriver }

// dropConnMutex puts a new connection in SQLite's multi-thread mode, as if it had
// been opened with SQLITE_OPEN_NOMUTEX: it frees the connection's mutex and clears
// the pointer to it, which is all that flag changes (SQLite's openDatabase
// allocates that mutex only for serialized connections, and every use of it is a
// no-op on a NULL pointer). modernc's driver hard-codes SQLITE_OPEN_FULLMUTEX, so
// every sqlite3_column_* call locked and unlocked the connection's recursive mutex:
// about a fifth of the CPU of an invoice list (docs/performance.md, "Fast
// paths"). Multi-thread mode is safe where no connection is used by two
// goroutines at once, which database/sql guarantees (and the driver's own
// per-connection state needs anyway, as its documentation says);
// sqlite3_interrupt, which the driver calls from another goroutine when a context
// ends, takes no mutex.
//
// The connection's handle is an unexported field of the driver's connection,
// read by reflection, and checked before anything is written through it: it must
// be an open connection to the database file the DSN names. TestDropConnMutex
// fails if a new version of the driver moves it.
func dropConnMutex(c sqlite.ExecQuerierContext, dsn string) error {
	db, err := sqliteHandle(c)
	if err != nil {
		return err
	}
	tls := libc.NewTLS()
	defer tls.Close()
	if err := checkHandle(tls, db, dsn); err != nil {
		return err
	}
	m := sqlite3.Xsqlite3_db_mutex(tls, db)
	if m == 0 {
		return nil // already multi-thread
	}
	(*sqlite3.Tsqlite3)(ptr(db)).Fmutex = 0
	sqlite3.Xsqlite3_mutex_free(tls, m)
	return nil
}

// sqliteHandle returns the sqlite3* of one of modernc's connections.
func sqliteHandle(c any) (uintptr, error) {
	v := reflect.ValueOf(c)
	if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
		return 0, errors.New("store: unexpected SQLite driver connection type")
	}
	f := v.Elem().FieldByName("db")
	if !f.IsValid() || f.Kind() != reflect.Uintptr || f.Uint() == 0 {
		return 0, errors.New("store: SQLite driver connection has no db handle")
	}
	return uintptr(f.Uint()), nil
}

// checkHandle makes sure db is an open SQLite connection whose main database is
// the file dsn names.
func checkHandle(tls *libc.TLS, db uintptr, dsn string) error {
	if (*sqlite3.Tsqlite3)(ptr(db)).FeOpenState != sqlite3.SQLITE_STATE_OPEN {
		return errors.New("store: SQLite driver handle is not an open connection")
	}
	main, err := libc.CString("main")
	if err != nil {
		return err
	}
	defer libc.Xfree(tls, main)
	name := libc.GoString(sqlite3.Xsqlite3_db_filename(tls, db, main))
	path, _, _ := strings.Cut(dsn, "?")
	if filepath.Base(name) != filepath.Base(path) {
		return fmt.Errorf("store: SQLite driver handle is of %q, not %q", name, path)
	}
	return nil
}

// ptr turns an address inside SQLite's C heap (modernc's libc allocator, outside
// Go's heap) into a pointer.
func ptr(a uintptr) unsafe.Pointer { return *(*unsafe.Pointer)(unsafe.Pointer(&a)) }
