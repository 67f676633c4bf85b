// SQL values shared by both engines, and what differs between them.

package store

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5/pgconn"
	_ "github.com/jackc/pgx/v5/stdlib" // registers the "pgx" database/sql driver
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// isUniqueViolation reports whether err is a unique or primary key violation on
// either engine.
func isUniqueViolation(err error) bool {
	var se *sqlite.Error
	if errors.As(err, &se) {
		c := se.Code()
		return c == sqlite3.SQLITE_CONSTRAINT_UNIQUE || c == sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code == "23505"
	}
	return false
}

// storable reports whether s can be stored in and compared with a TEXT column on both
// engines: valid UTF-8 without NUL (PostgreSQL refuses both). Input that is not
// storable matches nothing stored, so lookups answer "not found" instead of failing.
func storable(s string) bool {
	return utf8.ValidString(s) && !strings.ContainsRune(s, 0)
}

// queryer is what both *sql.DB and *sql.Tx offer.
type queryer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// scanner is what both *sql.Row and *sql.Rows offer.
type scanner interface {
	Scan(dest ...any) error
}

// Time columns hold unix microseconds.

func micros(t time.Time) int64 { return t.UnixMicro() }

func fromMicros(v int64) time.Time { return time.UnixMicro(v).UTC() }

func nullMicros(t *time.Time) any {
	if t == nil {
		return nil
	}
	return t.UnixMicro()
}

func timeOrNil(v sql.Null[int64]) *time.Time {
	if !v.Valid {
		return nil
	}
	t := fromMicros(v.V)
	return &t
}

func nullString(s *string) any {
	if s == nil {
		return nil
	}
	return *s
}

func stringOrNil(v sql.Null[string]) *string {
	if !v.Valid {
		return nil
	}
	s := v.V
	return &s
}
