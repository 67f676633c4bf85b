// Package sqlitemt opens SQLite connections of modernc's driver in SQLite's
// multi-thread mode instead of its serialized one.
//
// Why it exists: modernc.org/sqlite opens every connection with
// SQLITE_OPEN_FULLMUTEX and offers no way to ask for SQLITE_OPEN_NOMUTEX, so
// every sqlite3_column_* call locks and unlocks the connection's recursive
// mutex. In a CPU profile of GET /api/v1/invoices?limit=10 under load that
// lock and unlock were 22 % of the server's CPU (1.55 s of 6.88 s), almost all
// of it from reading columns. End to end, without it a list costs 100 against
// 118 µs of server CPU (11,706 against 10,287 req/s; scripts/bench-list.sh, four
// alternating rounds; docs/performance.md, "Hand-made parts against libraries").
//
// How: a connection hook frees the connection's mutex and clears the pointer to
// it, which is all that SQLITE_OPEN_NOMUTEX changes (SQLite's openDatabase
// allocates that mutex only for serialized connections, and every use of it is
// a no-op on a NULL pointer). The connection's sqlite3* handle is an unexported
// field of the driver's connection, read by reflection and checked before
// anything is written through it: it must be an open connection to the database
// file the DSN names. TestHandle fails if a new version of the driver moves it.
//
// Why it is safe: multi-thread mode is safe where no connection is used by two
// goroutines at once, which database/sql guarantees and which the driver's own
// per-connection state needs anyway (its documentation says so);
// sqlite3_interrupt, which the driver calls from another goroutine when a
// context ends, takes no mutex. Code that reaches a driver connection
// (sql.Conn.Raw) must not keep it or use it outside Raw, nor call NewBackup,
// Serialize or Deserialize on a busy one.
//
// Open(dsn, false) gives the driver as shipped; the store's
// Config.SQLiteSerialized turns this package off.
package sqlitemt

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

// multiThread is modernc's driver with the hook that drops each new
// connection's mutex.
var multiThread = func() *sqlite.Driver {
	d := &sqlite.Driver{}
	d.RegisterConnectionHook(dropConnMutex)
	return d
}()

// Open returns a pool of connections to dsn: in multi-thread mode when
// multi is true, else of modernc's registered driver as shipped (serialized).
func Open(dsn string, multi bool) *sql.DB {
	if !multi {
		db, err := sql.Open("sqlite", dsn)
		if err != nil {
			panic(err) // only for a driver name not registered, and the import registers it
		}
		return db
	}
	return sql.OpenDB(connector{dsn})
}

// connector is a driver.Connector of multi-thread connections to one DSN.
type connector struct{ dsn string }

func (c connector) Connect(context.Context) (driver.Conn, error) { return multiThread.Open(c.dsn) }
func (c connector) Driver() driver.Driver                        { return multiThread }

// dropConnMutex puts a new connection in multi-thread mode, as if it had been
// opened with SQLITE_OPEN_NOMUTEX.
func dropConnMutex(c sqlite.ExecQuerierContext, dsn string) error {
	db, err := handle(c)
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

// handle returns the sqlite3* of one of modernc's connections.
func handle(c any) (uintptr, error) {
	v := reflect.ValueOf(c)
	if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
		return 0, errors.New("sqlitemt: unexpected SQLite driver connection type")
	}
	f := v.Elem().FieldByName("db")
	if !f.IsValid() || f.Kind() != reflect.Uintptr || f.Uint() == 0 {
		return 0, errors.New("sqlitemt: SQLite driver connection has no db handle")
	}
	return uintptr(f.Uint()), nil
}

// checkHandle makes sure db is an open SQLite connection whose main database is
// the file dsn names.
func checkHandle(tls *libc.TLS, db uintptr, dsn string) error {
	if (*sqlite3.Tsqlite3)(ptr(db)).FeOpenState != sqlite3.SQLITE_STATE_OPEN {
		return errors.New("sqlitemt: SQLite driver handle is not an open connection")
	}
	main, err := libc.CString("main")
	if err != nil {
		return err
	}
	defer libc.Xfree(tls, main)
	name := libc.GoString(sqlite3.Xsqlite3_db_filename(tls, db, main))
	path, _, _ := strings.Cut(dsn, "?")
	if filepath.Base(name) != filepath.Base(path) {
		return fmt.Errorf("sqlitemt: SQLite driver handle is of %q, not %q", name, path)
	}
	return nil
}

// ptr turns an address inside SQLite's C heap (modernc's libc allocator, outside
// Go's heap) into a pointer.
func ptr(a uintptr) unsafe.Pointer { return *(*unsafe.Pointer)(unsafe.Pointer(&a)) }

// Serialized reports whether a connection of pool has a connection mutex
// (serialized mode): the store checks at open that it got the mode it asked
// for, and tests check Open.
func Serialized(ctx context.Context, pool *sql.DB) (bool, error) {
	conn, err := pool.Conn(ctx)
	if err != nil {
		return false, err
	}
	defer conn.Close()
	var m uintptr
	err = conn.Raw(func(dc any) error {
		h, err := handle(dc)
		if err != nil {
			return err
		}
		tls := libc.NewTLS()
		defer tls.Close()
		m = sqlite3.Xsqlite3_db_mutex(tls, h)
		return nil
	})
	return m != 0, err
}
