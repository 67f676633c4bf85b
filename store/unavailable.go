package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"io"
	"net"
	"strings"
	"syscall"

	"github.com/jackc/pgx/v5/pgconn"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/kassapay/kassa"
)

// A store outage is kassa.ErrUnavailable (503 with Retry-After), never an internal
// error (decisions.md, "Running in production"): the classifier below tells it
// from a fault of ours wherever a store error surfaces.
func init() { kassa.RegisterErrorClassifier(classifyStoreError) }

// classifyStoreError returns kassa.ErrUnavailable for err when it says the
// database cannot be reached or cannot take the request now, nil otherwise.
func classifyStoreError(err error) *kassa.Error {
	if unavailable(err) {
		return kassa.ErrUnavailable
	}
	return nil
}

// unavailable reports whether err is a failure to reach the database rather than a
// fault of the request or of ours: a connection refused, reset or closed, a
// PostgreSQL that is shutting down, starting or full, a pool that gave no
// connection before the deadline, or SQLite busy beyond its busy timeout. A client
// that cancelled its request is not an outage.
func unavailable(err error) bool {
	if err == nil || errors.Is(err, context.Canceled) {
		return false
	}
	var (
		ne net.Error
		ce *pgconn.ConnectError
		pe *pgconn.PgError
		se *sqlite.Error
	)
	switch {
	case errors.Is(err, driver.ErrBadConn), errors.Is(err, sql.ErrConnDone), errors.Is(err, context.DeadlineExceeded),
		errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.ECONNRESET),
		errors.Is(err, syscall.EPIPE), errors.Is(err, net.ErrClosed):
		return true
	case errors.As(err, &ce), errors.As(err, &ne):
		return true
	case errors.As(err, &pe):
		return unavailableCode(pe.Code)
	case errors.As(err, &se):
		c := se.Code() & 0xff
		return c == sqlite3.SQLITE_BUSY || c == sqlite3.SQLITE_LOCKED
	}
	// pgconn's errors for a connection that is closed or failed before anything
	// was sent ("conn closed", "conn busy" after a broken read) say so.
	return pgconn.SafeToRetry(err)
}

// unavailableCode reports whether a PostgreSQL error code is an outage:
// connection exceptions (class 08), too many connections, and the server shutting
// down or starting (57P01..57P03).
func unavailableCode(code string) bool {
	return strings.HasPrefix(code, "08") || code == "53300" || code == "57P01" || code == "57P02" || code == "57P03"
}
