package store

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"

	"kassa"
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

// pgCreateInvoice writes a prepared create on PostgreSQL in two round trips
// instead of six. The first pipelines BEGIN, the read of the webhook endpoints,
// the invoice, its event and the idempotency record; the second queues the
// deliveries the endpoints want, then COMMIT. It is one transaction as on the
// generic path (CreateInvoice on SQLite): a live record under the key rolls it all
// back with kassa.ErrClaimLost.
func (db *DB) pgCreateInvoice(ctx context.Context, w pgInvoiceWrite) error {
	if err := db.onPGConn(ctx, func(c *pgx.Conn) error { return pgWriteInvoice(ctx, c, w) }); err != nil {
		return err
	}
	db.createsCommitted(1)
	return nil
}

// onPGConn runs write on a connection of the pool; when write fails inside a
// transaction, the transaction is rolled back (or the connection dropped).
func (db *DB) onPGConn(ctx context.Context, write func(c *pgx.Conn) error) error {
	conn, err := db.w.Conn(ctx)
	if err != nil {
		return fmt.Errorf("store: create invoice: %w", err)
	}
	defer conn.Close()
	return conn.Raw(func(dc any) error {
		pc := dc.(*stdlib.Conn).Conn()
		err := write(pc)
		if err != nil && !pc.PgConn().IsClosed() && pc.PgConn().TxStatus() != 'I' {
			if _, rerr := pc.Exec(context.WithoutCancel(ctx), "ROLLBACK"); rerr != nil {
				return errors.Join(err, driver.ErrBadConn) // the pool drops this connection
			}
		}
		return err
	})
}

// createsCommitted tells followers and the Observer that n invoices were created
// in one committed transaction.
func (db *DB) createsCommitted(n int) {
	db.committed(true)
	if notes := db.newNotes(); notes != nil {
		for range n {
			notes.notes = append(notes.notes, note{kind: noteCreated})
		}
		db.report(notes)
	}
}

// pgWriteInvoice runs the two round trips on c; on an error the caller rolls back.
func pgWriteInvoice(ctx context.Context, c *pgx.Conn, w pgInvoiceWrite) error {
	inv, e := w.inv, w.event
	invoiceSQL, invoiceArgs, err := invoiceInsert(inv, w.token)
	if err != nil {
		return err
	}
	b := &pgx.Batch{}
	b.Queue("BEGIN")
	b.Queue("SELECT "+endpointColumns+" FROM webhook_endpoints WHERE merchant_id = $1 AND environment = $2 AND status = $3",
		e.MerchantID, string(e.Environment), kassa.EndpointEnabled)
	b.Queue(invoiceSQL, invoiceArgs...)
	eventSQL, eventArgs := eventInsert(e, w.z, &inv.ID)
	b.Queue(eventSQL, eventArgs...)
	if w.save != nil {
		q, args := idempotencyInsert(w.save.scope, w.save.fingerprint, w.save.status, w.save.stored, inv.CreatedAt)
		b.Queue(q, args...)
	}
	br := c.SendBatch(ctx, b)
	endpoints, conflict, err := readInvoiceBatch(br, w.save != nil)
	if cerr := br.Close(); err == nil && cerr != nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("store: create invoice: %w", err)
	}
	if conflict {
		return kassa.ErrClaimLost
	}
	b = &pgx.Batch{}
	for _, ep := range endpoints {
		if ep.Wants(e.Type) {
			q, args := deliveryInsert(newDelivery(ep, e, e.Created), e.Created)
			b.Queue(q, args...)
		}
	}
	b.Queue("COMMIT")
	if err := c.SendBatch(ctx, b).Close(); err != nil {
		return fmt.Errorf("store: create invoice: %w", err)
	}
	return nil
}

// readInvoiceBatch reads the first batch's results in order: the endpoints, and
// whether the idempotency record found a live one in its place.
func readInvoiceBatch(br pgx.BatchResults, keyed bool) (endpoints []*kassa.WebhookEndpoint, conflict bool, err error) {
	if _, err := br.Exec(); err != nil { // BEGIN
		return nil, false, err
	}
	rows, err := br.Query()
	if err != nil {
		return nil, false, err
	}
	for rows.Next() {
		ep, err := scanEndpoint(rows, nil)
		if err != nil {
			rows.Close()
			return nil, false, err
		}
		endpoints = append(endpoints, ep)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, false, err
	}
	if _, err := br.Exec(); err != nil { // the invoice
		return nil, false, err
	}
	if _, err := br.Exec(); err != nil { // the event
		return nil, false, err
	}
	if !keyed {
		return endpoints, false, nil
	}
	tag, err := br.Exec()
	if err != nil {
		return nil, false, err
	}
	return endpoints, tag.RowsAffected() != 1, nil
}
