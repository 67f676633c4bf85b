package store

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/kassapay/kassa"
)

// Page size bounds for Invoices.
const (
	DefaultListLimit = 10
	MaxListLimit     = 100
)

// where builds a WHERE clause with numbered parameters. Every parameter must be
// referenced: PostgreSQL cannot type an unused one.
type where struct {
	conds []string
	args  []any
	// notIndexed: the conditions name every row by rowid (searchByRowid), which
	// SQLite is to look up rather than walk an index of invoices.
	notIndexed bool
	// customPlan: PostgreSQL is to plan the query with its parameters' values
	// (queryArgs), as a search's LIKE needs.
	customPlan bool
}

// queryArgs is w's arguments for database/sql. With customPlan they go to pgx
// ahead of QueryExecModeDescribeExec: the unnamed statement, planned with the
// values each time. A statement pgx caches gets PostgreSQL's generic plan after
// five runs, which cannot know that LIKE '%zanzibar%' is rare and walks the
// merchant's invoices newest first instead of reading the trigram index
// (16-92 s instead of milliseconds at 10,000,000 invoices).
func (w *where) queryArgs() []any {
	if !w.customPlan {
		return w.args
	}
	return append([]any{pgx.QueryExecModeDescribeExec}, w.args...)
}

// from is the FROM clause of a query of invoices under w.
func (w *where) from() string {
	if w.notIndexed {
		return " FROM invoices NOT INDEXED"
	}
	return " FROM invoices"
}

// arg adds a parameter and returns its placeholder.
func (w *where) arg(v any) string {
	w.args = append(w.args, v)
	return "$" + strconv.Itoa(len(w.args))
}

func (w *where) add(format string, vs ...any) {
	ph := make([]any, len(vs))
	for i, v := range vs {
		ph[i] = w.arg(v)
	}
	w.conds = append(w.conds, fmt.Sprintf(format, ph...))
}

// in adds "expr IN (...)" for a non-empty list.
func (w *where) in(expr string, vs []string) {
	if len(vs) == 0 {
		return
	}
	ph := make([]string, len(vs))
	for i, v := range vs {
		ph[i] = w.arg(v)
	}
	w.conds = append(w.conds, expr+" IN ("+strings.Join(ph, ", ")+")")
}

// search adds the dashboard's search: an invoice id, customer id, deposit
// address or transaction hash exactly (addresses in either case), or a piece of
// the description. The invoices of the deposit address or transaction hash are
// looked up first (indexed). A piece of the description is found through a
// trigram index: PostgreSQL's (descriptionLike), SQLite's FTS5 table
// (descriptionCandidates, searchByRowid). Where SQLite's index cannot say, the
// scan of the merchant's invoices compares only columns of the index
// invoices_merchant_env_search and never reads a row that does not match
// (docs/performance.md, "Dashboard" and "The store at size").
func (db *DB) search(ctx context.Context, w *where, merchantID int64, q string) error {
	q = strings.TrimSpace(q)
	if !storable(q) { // no stored text holds it (and PostgreSQL refuses to compare it)
		w.conds = append(w.conds, "1 = 0")
		return nil
	}
	address := q
	if kassa.CheckEVMAddress("q", q) == nil {
		address = kassa.ChecksumAddress(q) // as deposit addresses are stored
	}
	rows, err := db.r.QueryContext(ctx, `SELECT invoice_id FROM payment_addresses WHERE address = $1
		UNION SELECT invoice_id FROM receipts WHERE tx_hash = $2 LIMIT 100`, address, strings.ToLower(q))
	if err != nil {
		return fmt.Errorf("store: search invoices: %w", err)
	}
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return fmt.Errorf("store: search invoices: %w", err)
		}
		ids = append(ids, id)
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("store: search invoices: %w", err)
	}
	lq := strings.ToLower(q)
	w.customPlan = db.engine == EnginePostgres
	rowids, through, ok, err := db.descriptionCandidates(ctx, lq)
	if err != nil {
		return err
	}
	if ok {
		db.searchByRowid(w, merchantID, q, lq, ids, rowids, through)
		return nil
	}
	exact := w.arg(q)
	cond := "(id = " + exact + " OR customer_id = " + exact + " OR " + db.descriptionLike(w, lq)
	for _, id := range ids { // the merchant_id condition keeps other merchants' invoices out
		cond += " OR id = " + w.arg(id)
	}
	w.conds = append(w.conds, cond+")")
	return nil
}

func (w *where) String() string { return " WHERE " + strings.Join(w.conds, " AND ") }

// common adds the filters Invoices and InvoiceTotals share.
func (w *where) common(merchantID int64, env *kassa.Environment, customerID *string, gte, lte *time.Time) {
	w.add("merchant_id = %s", merchantID)
	if env != nil {
		w.add("environment = %s", string(*env))
	}
	if customerID != nil {
		w.add("customer_id = %s", *customerID)
	}
	if gte != nil {
		w.add("created_at >= %s", micros(*gte))
	}
	if lte != nil {
		w.add("created_at <= %s", micros(*lte))
	}
}

// checkFilterText refuses filter values no TEXT column can hold.
func checkFilterText(customerID *string, types []string, statuses []kassa.InvoiceStatus) error {
	if customerID != nil && !storable(*customerID) {
		return kassa.Invalidf("customer_id", "invalid_customer_id", "customer_id must be valid UTF-8 text.")
	}
	for _, t := range types {
		if !storable(t) {
			return kassa.Invalidf("invoice_type", "invalid_invoice_type", "invoice_type must be valid UTF-8 text.")
		}
	}
	for _, s := range statuses {
		if !storable(string(s)) {
			return kassa.Invalidf("status", "invalid_status", "status must be valid UTF-8 text.")
		}
	}
	return nil
}

// Invoices returns a page of the merchant's invoices, newest first by (created_at,
// id), and whether more exist in the paging direction. With StartingAfter the page
// holds the invoices just older than that one; with EndingBefore those just newer,
// still newest first. A cursor unknown to the merchant is invalid_cursor. Statuses
// match the effective status.
func (db *DB) Invoices(ctx context.Context, f kassa.InvoiceFilter) ([]*kassa.Invoice, bool, error) {
	if f.StartingAfter != "" && f.EndingBefore != "" {
		return nil, false, kassa.Invalidf("ending_before", "invalid_cursor",
			"starting_after and ending_before cannot be used together.")
	}
	if err := checkFilterText(f.CustomerID, f.Types, f.Statuses); err != nil {
		return nil, false, err
	}
	now := db.clock()
	pg, err := db.invoicePageQuery(ctx, f, now)
	if err != nil {
		return nil, false, err
	}
	limit, backward := pg.limit, pg.backward
	qctx := ctx
	if f.Query == "" && !f.NeedsAttention {
		if db.reads != nil { // PostgreSQL: in one round trip with the pages asked for meanwhile
			out, err := db.reads.page(ctx, pg, now)
			if err != nil {
				return nil, false, err
			}
			out, more := trimPage(out, limit, backward)
			return out, more, nil
		}
		qctx = bounded(ctx) // a page of at most MaxListLimit+1 rows along an index
	}
	rows, err := db.r.QueryContext(qctx, pg.query, pg.args...)
	if err != nil {
		return nil, false, fmt.Errorf("store: list invoices: %w", err)
	}
	defer rows.Close()
	out := make([]*kassa.Invoice, 0, limit+1)
	var sc invoiceScan // one set of scan destinations for every row
	for rows.Next() {
		inv, err := sc.scan(rows)
		if err != nil {
			return nil, false, fmt.Errorf("store: list invoices: %w", err)
		}
		inv.Status = inv.EffectiveStatus(now)
		out = append(out, inv)
	}
	if err := rows.Err(); err != nil {
		return nil, false, fmt.Errorf("store: list invoices: %w", err)
	}
	out, more := trimPage(out, limit, backward)
	return out, more, nil
}

// invoiceWhere is the WHERE of a list of invoices matching f (but its cursor)
// at time now; Statuses match the effective status.
func (db *DB) invoiceWhere(ctx context.Context, f kassa.InvoiceFilter, now time.Time) (*where, error) {
	w := &where{}
	w.common(f.MerchantID, f.Environment, f.CustomerID, f.CreatedGTE, f.CreatedLTE)
	if len(f.Statuses) > 0 {
		statuses := make([]string, len(f.Statuses))
		for i, s := range f.Statuses {
			statuses[i] = string(s)
		}
		w.in(effectiveStatusSQL(w.arg(micros(now))), statuses)
	}
	w.in("invoice_type", f.Types)
	if f.NeedsAttention {
		w.conds = append(w.conds, "("+effectiveStatusSQL(w.arg(micros(now)))+" = "+w.arg(string(kassa.StatusUnderpaid))+
			" OR id IN (SELECT invoice_id FROM receipts WHERE status = "+w.arg(string(kassa.PaymentManualRetry))+"))")
	}
	if f.Query != "" {
		if err := db.search(ctx, w, f.MerchantID, f.Query); err != nil {
			return nil, err
		}
	}
	return w, nil
}

// CountInvoices counts the invoices matching f (its cursor and limit aside).
// With NeedsAttention only the few invoices that can match are read
// (invoicesFrom).
func (db *DB) CountInvoices(ctx context.Context, f kassa.InvoiceFilter) (int64, error) {
	if err := checkFilterText(f.CustomerID, f.Types, f.Statuses); err != nil {
		return 0, err
	}
	now := db.clock()
	w, err := db.invoiceWhere(ctx, f, now)
	if err != nil {
		return 0, err
	}
	var n int64
	if err := db.r.QueryRowContext(ctx, "SELECT COUNT(*)"+db.invoicesFrom(w, f, now)+w.String(), w.queryArgs()...).Scan(&n); err != nil {
		return 0, fmt.Errorf("store: count invoices: %w", err)
	}
	return n, nil
}

// invoicesFrom is the FROM of a list or count of the invoices matching f under
// w at now: with NeedsAttention only the few invoices that can match are read
// (attentionFrom, whose join condition it adds to w).
func (db *DB) invoicesFrom(w *where, f kassa.InvoiceFilter, now time.Time) string {
	if !f.NeedsAttention {
		return w.from()
	}
	from := db.attentionFrom(w, f.MerchantID, now)
	w.conds = append(w.conds, "id = attention_id")
	return from
}

// attentionFrom is the FROM of a count of invoices needing attention at now:
// the merchant's underpaid invoices not past their expiry (the partial index
// invoices_underpaid, which holds the columns that say so) and those with money
// set aside (receipts_set_aside), joined to invoices by id, so the count reads
// those few rows instead of every invoice of the merchant. The WHERE of
// invoiceWhere still decides which of them match. Statuses are literals, as a
// partial index needs; on SQLite, CROSS JOIN keeps that order (its planner has no
// statistics).
func (db *DB) attentionFrom(w *where, merchantID int64, now time.Time) string {
	m := w.arg(merchantID)
	return " FROM (SELECT id AS attention_id FROM invoices" + db.indexedBy("invoices_underpaid") +
		" WHERE merchant_id = " + m + " AND status = 'underpaid' AND (expires_at > " + w.arg(micros(now)) +
		" OR amount_pending <> 0) UNION SELECT invoice_id FROM receipts" + db.indexedBy("receipts_set_aside") +
		" WHERE status = 'manual_retry' AND merchant_id = " + m + ") attention CROSS JOIN invoices"
}
