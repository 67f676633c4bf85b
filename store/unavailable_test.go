package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"net"
	"syscall"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/kassapay/kassa"
)

// TestStoreErrorsUnavailable: connectivity failures of either engine are
// kassa.ErrUnavailable wherever they surface (wrapped as the store wraps them);
// faults of ours, bad input and a client's cancellation are not.
func TestStoreErrorsUnavailable(t *testing.T) {
	refused := &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}
	tests := []struct {
		name string
		err  error
		want kassa.ErrorKind
	}{
		{"connection refused", refused, kassa.KindUnavailable},
		{"bad connection", driver.ErrBadConn, kassa.KindUnavailable},
		{"connection done", sql.ErrConnDone, kassa.KindUnavailable},
		{"cut mid-answer", fmt.Errorf("failed to receive message: %w", io.ErrUnexpectedEOF), kassa.KindUnavailable},
		{"no connection before the deadline", context.DeadlineExceeded, kassa.KindUnavailable},
		{"server shutting down", &pgconn.PgError{Code: "57P01"}, kassa.KindUnavailable},
		{"too many connections", &pgconn.PgError{Code: "53300"}, kassa.KindUnavailable},
		{"connection exception", &pgconn.PgError{Code: "08006"}, kassa.KindUnavailable},
		{"unique violation", &pgconn.PgError{Code: "23505"}, kassa.KindInternal},
		{"client cancelled", context.Canceled, kassa.KindInternal},
		{"our fault", errors.New("store: receipt r: bad amount"), kassa.KindInternal},
		{"domain error kept", kassa.NotFound("invoice"), kassa.KindNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := fmt.Errorf("store: list invoices: %w", tt.err)
			if got := kassa.ErrorKindOf(err); got != tt.want {
				t.Errorf("kind %s, want %s", got, tt.want)
			}
			if tt.want == kassa.KindUnavailable && kassa.ErrorCode(err) != "service_unavailable" {
				t.Errorf("code %s", kassa.ErrorCode(err))
			}
		})
	}
}
