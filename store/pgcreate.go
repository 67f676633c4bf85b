package store

import (
	"context"
	"fmt"
	"strconv"
	"strings"

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

// pgCreateInvoice writes a prepared create on PostgreSQL as one statement, in one
// round trip and one implicit transaction (pgCreateSQL): the idempotency record,
// the invoice, its event and a delivery for every enabled endpoint that wants it.
// Six statements in two round trips cost PostgreSQL about a third more CPU per
// create (docs/performance.md, "Issue 17, fourth session"). A live record under
// the key inserts nothing and returns kassa.ErrClaimLost, as on the generic path
// (CreateInvoice on SQLite).
func (db *DB) pgCreateInvoice(ctx context.Context, w pgInvoiceWrite) error {
	query, args, err := pgCreateSQL(w)
	if err != nil {
		return err
	}
	var saved bool
	if err := db.w.QueryRowContext(ctx, query, args...).Scan(&saved); err != nil {
		return fmt.Errorf("store: create invoice: %w", err)
	}
	if !saved {
		return kassa.ErrClaimLost
	}
	db.committed(true)
	if notes := db.newNotes(); notes != nil {
		notes.notes = append(notes.notes, note{kind: noteCreated})
		db.report(notes)
	}
	return nil
}

// pgCreateSQL builds the statement of a create and its arguments. Behind an
// idempotency key the record is inserted first (k) and every other insert runs
// only if it was (a live record under the key keeps it: ON CONFLICT ... WHERE);
// the statement returns whether it was. Deliveries are chosen in SQL: an
// enabled endpoint of the merchant's environment with no patterns, or with one
// of the patterns that match the event's type (kassa.EventTypePatterns, the same
// rule as WebhookEndpoint.Wants). Their ids are the event's delivery id prefix
// and a counter, so they sort by time as newDeliveryID's do.
func pgCreateSQL(w pgInvoiceWrite) (string, []any, error) {
	inv, e := w.inv, w.event
	invoiceSQL, args, err := invoiceInsert(inv, w.token)
	if err != nil {
		return "", nil, err
	}
	guard := ""
	var b strings.Builder
	b.WriteString("WITH ")
	if w.save != nil {
		idemSQL, idemArgs := idempotencyInsert(w.save.scope, w.save.fingerprint, w.save.status, w.save.stored, inv.CreatedAt)
		b.WriteString("k AS (" + idemSQL + " RETURNING 1), ")
		args = append(idemArgs, args...)
		invoiceSQL = shiftParams(invoiceSQL, len(idemArgs))
		guard = " WHERE EXISTS (SELECT 1 FROM k)"
	}
	b.WriteString("i AS (" + insertSelect(invoiceSQL) + guard + "), ")
	eventSQL, eventArgs := eventInsert(e, w.z, &inv.ID)
	b.WriteString("e AS (" + insertSelect(shiftParams(eventSQL, len(args))) + guard + "), ")
	args = append(args, eventArgs...)
	n := len(args)
	fmt.Fprintf(&b, `d AS (INSERT INTO webhook_deliveries (id, endpoint_id, merchant_id, environment, event_id,
		event_type, status, next_attempt_at, created_at, updated_at)
		SELECT $%d || lpad(to_hex(row_number() OVER (ORDER BY ep.id)), 8, '0'), ep.id, ep.merchant_id, ep.environment,
			$%d, $%d, $%d, $%d, $%d, $%d
		FROM webhook_endpoints ep
		WHERE ep.merchant_id = $%d AND ep.environment = $%d AND ep.status = $%d
			AND (ep.enabled_events IN ('[]', 'null') OR ep.enabled_events::jsonb ?| $%d)`,
		n+1, n+2, n+3, n+4, n+5, n+5, n+5, n+6, n+7, n+8, n+9)
	if guard != "" {
		b.WriteString(" AND EXISTS (SELECT 1 FROM k)")
	}
	base := newDeliveryID(e.Created)
	args = append(args, base[:len(base)-8], e.ID, e.Type, kassa.DeliveryPending, micros(e.Created),
		e.MerchantID, string(e.Environment), kassa.EndpointEnabled, kassa.EventTypePatterns(e.Type))
	if guard != "" {
		b.WriteString(") SELECT EXISTS (SELECT 1 FROM k)")
	} else {
		b.WriteString(") SELECT true")
	}
	return b.String(), args, nil
}

// insertSelect turns "INSERT INTO t (...) VALUES (...)" into "INSERT INTO t (...)
// SELECT ...", to which a WHERE can be added. PostgreSQL takes the parameters'
// types from the columns either way.
func insertSelect(insert string) string {
	i := strings.Index(insert, "VALUES (")
	if i < 0 || !strings.HasSuffix(insert, ")") {
		panic("store: insertSelect: not a single-row INSERT ... VALUES: " + insert)
	}
	return insert[:i] + "SELECT " + insert[i+len("VALUES ("):len(insert)-1]
}

// shiftParams renumbers the placeholders $1, $2, ... of query to $1+by, $2+by, ...
func shiftParams(query string, by int) string {
	var b strings.Builder
	for i := 0; i < len(query); i++ {
		if query[i] != '$' {
			b.WriteByte(query[i])
			continue
		}
		j := i + 1
		for j < len(query) && '0' <= query[j] && query[j] <= '9' {
			j++
		}
		n, err := strconv.Atoi(query[i+1 : j])
		if err != nil {
			panic("store: shiftParams: a $ without a number: " + query)
		}
		b.WriteString("$" + strconv.Itoa(n+by))
		i = j - 1
	}
	return b.String()
}
