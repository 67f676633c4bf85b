package store

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/kassapay/kassa"
)

// pgInvoiceWrite is an invoice create prepared outside the transaction: the row,
// its invoice.created event and, behind an idempotency key, the sealed response.
type pgInvoiceWrite struct {
	inv   *kassa.Invoice
	token string
	event *kassa.Event
	z     []byte   // the event's data deflated
	save  *pgSaved // nil: no idempotency key
}

// pgSaved is the finished response to store under the request's key.
type pgSaved struct {
	scope       kassa.IdempotencyScope
	fingerprint string
	status      int
	stored      []byte
}

// pgCreateInvoice writes one prepared create on PostgreSQL through on: a batch
// of one (pgCreateInvoices). A live record under its key rolls it all back with
// kassa.ErrClaimLost.
func (db *DB) pgCreateInvoice(ctx context.Context, on connRunner, memo *endpointMemo, w pgInvoiceWrite) error {
	err := db.pgCreateInvoices(ctx, on, memo, []pgInvoiceWrite{w})
	if errors.Is(err, errKeyLive) {
		return kassa.ErrClaimLost
	}
	return err
}

// onPGConn runs write on a connection of the pool, as pgx's own (for its
// batches); when write fails inside a transaction, the transaction is rolled back
// (or the connection dropped).
func (db *DB) onPGConn(ctx context.Context, write func(c *pgx.Conn) error) error {
	conn, err := db.w.Conn(ctx)
	if err != nil {
		return fmt.Errorf("store: connection: %w", err)
	}
	defer conn.Close()
	return conn.Raw(func(dc any) error { return writeOn(ctx, dc.(*stdlib.Conn).Conn(), write) })
}

// createsCommitted tells followers and the Observer that n invoices were created
// in one committed transaction, which queued webhook deliveries or not.
func (db *DB) createsCommitted(n int, queued bool) {
	db.committed(done{data: true, deliveries: queued})
	if notes := db.newNotes(); notes != nil {
		for range n {
			notes.notes = append(notes.notes, note{kind: noteCreated})
		}
		db.report(notes)
	}
}
