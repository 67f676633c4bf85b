package store

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"kassa"
)

// errBatchSplit says a batch of creates was rolled back for a reason that belongs
// to one of them: a live idempotency record under a key, or a row that could not
// be made. Its creates are then run
// one by one, each meeting its own outcome.
var errBatchSplit = errors.New("store: batch rolled back for one of its creates")

// errKeyLive is errBatchSplit for a live idempotency record: for a create alone,
// kassa.ErrClaimLost.
var errKeyLive = fmt.Errorf("%w: a live idempotency record", errBatchSplit)

// splits reports whether a batch that failed with err should be run again one
// create at a time: for errBatchSplit, and for a statement the database refused
// (severity ERROR: its transaction is rolled back; which create it was is not
// known). Other errors are every create's: after a lost connection, or a FATAL
// error such as a shutdown during COMMIT, the batch may have been committed.
func splits(err error) bool {
	var pe *pgconn.PgError
	return errors.Is(err, errBatchSplit) || errors.As(err, &pe) && pe.Severity == "ERROR"
}

// connRunner runs write on a PostgreSQL connection: db.onPGConn, or a pin's run.
type connRunner func(ctx context.Context, write func(c *pgx.Conn) error) error

// pgCreateInvoices writes prepared creates through on in one transaction of two
// pipelined round trips: BEGIN, the webhook endpoints and a multi-row INSERT per
// table for the invoices, their events and the idempotency records; then their
// webhook deliveries and COMMIT.
func (db *DB) pgCreateInvoices(ctx context.Context, on connRunner, ws []pgInvoiceWrite) error {
	var queued bool
	err := on(ctx, func(c *pgx.Conn) (err error) {
		queued, err = pgWriteInvoices(ctx, c, ws)
		return err
	})
	if err != nil {
		return err
	}
	db.createsCommitted(len(ws), queued)
	return nil
}

// endpointScope is whose webhook endpoints a batch reads: one merchant's in one
// environment.
type endpointScope struct {
	merchantID int64
	env        kassa.Environment
}

// pgWriteInvoices runs the two round trips on c and reports whether they queued
// webhook deliveries; on an error the caller rolls back.
func pgWriteInvoices(ctx context.Context, c *pgx.Conn, ws []pgInvoiceWrite) (queued bool, err error) {
	var scopes []endpointScope
	invoices, events, keys := make([][]any, 0, len(ws)), make([][]any, 0, len(ws)), make([][]any, 0, len(ws))
	var invoiceSQL, eventSQL, keySQL string
	for _, w := range ws {
		s := endpointScope{w.event.MerchantID, w.event.Environment}
		if !slices.Contains(scopes, s) {
			scopes = append(scopes, s)
		}
		q, args, err := invoiceInsert(w.inv, w.token)
		if err != nil && len(ws) > 1 { // this create's own: alone, it fails with it
			return false, fmt.Errorf("%w: %w", errBatchSplit, err)
		}
		if err != nil {
			return false, err
		}
		invoiceSQL, invoices = q, append(invoices, args)
		q, args = eventInsert(w.event, w.z, &w.inv.ID)
		eventSQL, events = q, append(events, args)
		if w.save != nil {
			q, args = idempotencyInsert(w.save.scope, w.save.fingerprint, w.save.status, w.save.stored, w.inv.CreatedAt)
			keySQL, keys = q, append(keys, args)
		}
	}
	b := &pgx.Batch{}
	b.Queue("BEGIN")
	for _, s := range scopes {
		b.Queue(enabledEndpointsSQL, s.merchantID, string(s.env), kassa.EndpointEnabled)
	}
	queueRows(b, invoiceSQL, invoices)
	queueRows(b, eventSQL, events)
	if len(keys) > 0 {
		// The records share the ON CONFLICT condition's times, the first
		// create's; the batch's creates are milliseconds apart.
		queueRows(b, keySQL, keys)
	}
	br := c.SendBatch(ctx, b)
	endpoints, err := readInvoicesBatch(br, scopes, len(keys))
	if cerr := br.Close(); err == nil && cerr != nil {
		err = cerr
	}
	if err != nil {
		return false, fmt.Errorf("store: create invoices: %w", err)
	}
	var deliveries [][]any
	var deliverySQL string
	for _, w := range ws {
		e := w.event
		for _, ep := range endpoints[slices.Index(scopes, endpointScope{e.MerchantID, e.Environment})] {
			if ep.Wants(e.Type) {
				var args []any
				deliverySQL, args = deliveryInsert(newDelivery(ep, e, e.Created), e.Created)
				deliveries = append(deliveries, args)
			}
		}
	}
	b = &pgx.Batch{}
	if len(deliveries) > 0 {
		queueRows(b, deliverySQL, deliveries)
	}
	b.Queue("COMMIT")
	if err = c.SendBatch(ctx, b).Close(); err != nil {
		return false, fmt.Errorf("store: create invoices: %w", err)
	}
	return len(deliveries) > 0, nil
}

// queueRows queues the one-row statement single as one INSERT of every row of
// args (multiRow).
func queueRows(b *pgx.Batch, single string, rows [][]any) {
	q, width := multiRow(single, len(rows))
	b.Queue(q, rowArgs(width, rows)...)
}

// readInvoicesBatch reads the first batch's results in order: the endpoints of
// each scope, and the inserts; keys idempotency records must all have been written
// (inserted, or taken over from a dead record), or errKeyLive.
func readInvoicesBatch(br pgx.BatchResults, scopes []endpointScope, keys int) ([][]*kassa.WebhookEndpoint, error) {
	if _, err := br.Exec(); err != nil { // BEGIN
		return nil, err
	}
	endpoints := make([][]*kassa.WebhookEndpoint, len(scopes))
	for i := range scopes {
		rows, err := br.Query()
		if err != nil {
			return nil, err
		}
		for rows.Next() {
			ep, err := scanEndpoint(rows, nil)
			if err != nil {
				rows.Close()
				return nil, err
			}
			endpoints[i] = append(endpoints[i], ep)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
	}
	if _, err := br.Exec(); err != nil { // the invoices
		return nil, err
	}
	if _, err := br.Exec(); err != nil { // the events
		return nil, err
	}
	if keys == 0 {
		return endpoints, nil
	}
	tag, err := br.Exec()
	if err != nil {
		return nil, err
	}
	if tag.RowsAffected() != int64(keys) {
		return nil, errKeyLive
	}
	return endpoints, nil
}
