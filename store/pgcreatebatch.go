package store

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/kassapay/kassa"
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

// pgCreateInvoices writes prepared creates through on in one transaction. When
// memo knows the webhook endpoints of every merchant environment of the batch, it
// is one pipelined round trip (once its statements are prepared on the
// connection): BEGIN, a check that those endpoints are unchanged,
// a multi-row INSERT per table (invoices, events, idempotency records,
// deliveries), COMMIT. Otherwise, or when the check fails, two: BEGIN, the
// endpoints (remembered in memo) and the inserts; then the deliveries and COMMIT.
// A live idempotency record under a key of the batch fails it with errKeyLive.
func (db *DB) pgCreateInvoices(ctx context.Context, on connRunner, memo *endpointMemo, ws []pgInvoiceWrite) error {
	st, err := pgBatchStatements(ws)
	if err != nil {
		return err
	}
	var queued bool
	sets, known := memo.lookup(st.scopes)
	if known {
		err = on(ctx, func(c *pgx.Conn) (err error) {
			queued, err = st.writeOneTrip(ctx, c, sets)
			return err
		})
		switch {
		case err == nil:
			memo.oneTrip.Add(1)
		case hasCode(err, codeEndpointsChanged): // rolled back: read them again
			memo.stale.Add(1)
			memo.forget(st.scopes)
			known = false
		}
	}
	if !known {
		err = on(ctx, func(c *pgx.Conn) (err error) {
			queued, err = st.writeTwoTrips(ctx, c, memo)
			return err
		})
	}
	if hasCode(err, codeKeyLive) {
		return errKeyLive
	}
	if err != nil {
		return fmt.Errorf("store: create invoices: %w", err)
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

// pgBatch is a batch of creates as statements, built before its transaction: the
// merchant environments it writes events for, and the rows of each table.
type pgBatch struct {
	ws                        []pgInvoiceWrite
	scopes                    []endpointScope
	invoiceSQL, eventSQL      string
	keySQL                    string // "" when no create has a key
	invoices, events, keyRows [][]any
}

// pgBatchStatements builds the statements of ws.
func pgBatchStatements(ws []pgInvoiceWrite) (*pgBatch, error) {
	st := &pgBatch{ws: ws, invoices: make([][]any, 0, len(ws)), events: make([][]any, 0, len(ws))}
	for _, w := range ws {
		s := endpointScope{w.event.MerchantID, w.event.Environment}
		if !slices.Contains(st.scopes, s) {
			st.scopes = append(st.scopes, s)
		}
		q, args, err := invoiceInsert(w.inv, w.token)
		if err != nil && len(ws) > 1 { // this create's own: alone, it fails with it
			return nil, fmt.Errorf("%w: %w", errBatchSplit, err)
		}
		if err != nil {
			return nil, err
		}
		st.invoiceSQL, st.invoices = q, append(st.invoices, args)
		q, args = eventInsert(w.event, w.z, &w.inv.ID)
		st.eventSQL, st.events = q, append(st.events, args)
		if w.save != nil {
			q, args = idempotencyInsert(w.save.scope, w.save.fingerprint, w.save.status, w.save.stored, w.inv.CreatedAt)
			st.keySQL, st.keyRows = q, append(st.keyRows, args)
		}
	}
	return st, nil
}

// queueInserts queues the inserts of the invoices, their events and their
// idempotency records. The records share the ON CONFLICT condition's times, the
// first create's (the batch's creates are milliseconds apart); every record must
// be written, inserted or taken over from a dead one, or the transaction aborts
// (KA002).
func (st *pgBatch) queueInserts(b *pgx.Batch) {
	queueRows(b, st.invoiceSQL, st.invoices)
	queueRows(b, st.eventSQL, st.events)
	if len(st.keyRows) > 0 {
		q, width := multiRow(st.keySQL, len(st.keyRows))
		b.Queue("WITH written AS ("+q+" RETURNING 1) SELECT kassa_check(count(*) = "+strconv.Itoa(len(st.keyRows))+
			", '"+codeKeyLive+"', 'kassa: a live idempotency record') FROM written", rowArgs(width, st.keyRows)...)
	}
}

// writeOneTrip sends the batch, its deliveries to the endpoints of sets (one per
// scope) and COMMIT at once; the transaction aborts (KA001) unless each scope's
// endpoints still have their set's print. It reports whether deliveries were
// queued. On an error PostgreSQL skipped the rest, COMMIT included: the
// transaction is left aborted, and the caller (writeOn) rolls it back.
func (st *pgBatch) writeOneTrip(ctx context.Context, c *pgx.Conn, sets []endpointSet) (queued bool, err error) {
	b := &pgx.Batch{}
	b.Queue("BEGIN")
	for i, s := range st.scopes {
		b.Queue(endpointsUnchangedSQL, s.merchantID, string(s.env), kassa.EndpointEnabled, sets[i].print)
	}
	st.queueInserts(b)
	queued = st.queueDeliveries(b, sets)
	b.Queue("COMMIT")
	return queued, execAll(c.SendBatch(ctx, b), b.Len(), true)
}

// writeTwoTrips reads the endpoints with the inserts, remembers them in memo,
// then sends the deliveries and COMMIT.
func (st *pgBatch) writeTwoTrips(ctx context.Context, c *pgx.Conn, memo *endpointMemo) (queued bool, err error) {
	b := &pgx.Batch{}
	b.Queue("BEGIN")
	for _, s := range st.scopes {
		b.Queue(enabledEndpointsPrintSQL, s.merchantID, string(s.env), kassa.EndpointEnabled)
	}
	st.queueInserts(b)
	br := c.SendBatch(ctx, b)
	sets, err := st.readEndpoints(br)
	if err != nil {
		_ = br.Close()
		return false, err
	}
	for i, s := range st.scopes { // a snapshot, whatever the inserts meet
		memo.put(s, sets[i])
	}
	if err = execAll(br, b.Len()-1-len(st.scopes), false); err != nil {
		return false, err
	}
	b = &pgx.Batch{}
	queued = st.queueDeliveries(b, sets)
	b.Queue("COMMIT")
	return queued, execAll(c.SendBatch(ctx, b), b.Len(), true)
}

// readEndpoints reads the results of BEGIN and of each scope's endpoints.
func (st *pgBatch) readEndpoints(br pgx.BatchResults) ([]endpointSet, error) {
	if _, err := br.Exec(); err != nil { // BEGIN
		return nil, err
	}
	sets := make([]endpointSet, len(st.scopes))
	for i := range st.scopes {
		var err error
		if sets[i], err = readEndpointSet(br); err != nil {
			return nil, err
		}
	}
	return sets, nil
}

// queueDeliveries queues one INSERT of the deliveries of every event of the batch
// to the endpoints of sets that want it, if there are any, and reports whether
// there were.
func (st *pgBatch) queueDeliveries(b *pgx.Batch, sets []endpointSet) bool {
	var deliveries [][]any
	var deliverySQL string
	for _, w := range st.ws {
		e := w.event
		for _, ep := range sets[slices.Index(st.scopes, endpointScope{e.MerchantID, e.Environment})].eps {
			if ep.Wants(e.Type) {
				var args []any
				deliverySQL, args = deliveryInsert(newDelivery(ep, e, e.Created), e.Created)
				deliveries = append(deliveries, args)
			}
		}
	}
	if len(deliveries) > 0 {
		queueRows(b, deliverySQL, deliveries)
	}
	return len(deliveries) > 0
}

// execAll reads n results of br and closes it, returning the first error. When
// the last is a COMMIT's (commits), its answering anything but COMMIT is an
// error too.
func execAll(br pgx.BatchResults, n int, commits bool) error {
	var first error
	for i := range n {
		tag, err := br.Exec()
		if err != nil && first == nil {
			first = err
		}
		if commits && i == n-1 && first == nil && tag.String() != "COMMIT" {
			first = fmt.Errorf("COMMIT answered %q", tag.String())
		}
	}
	if err := br.Close(); first == nil {
		first = err
	}
	return first
}

// queueRows queues the one-row statement single as one INSERT of every row of
// args (multiRow).
func queueRows(b *pgx.Batch, single string, rows [][]any) {
	q, width := multiRow(single, len(rows))
	b.Queue(q, rowArgs(width, rows)...)
}
