package store

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/invoicing"
)

// queryPlan returns SQLite's EXPLAIN QUERY PLAN of query, one step a line.
func queryPlan(t *testing.T, db *DB, query string, args ...any) string {
	t.Helper()
	rows, err := db.r.QueryContext(context.Background(), "EXPLAIN QUERY PLAN "+query, args...)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var plan []string
	for rows.Next() {
		var id, parent, unused int
		var detail string
		if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
			t.Fatal(err)
		}
		plan = append(plan, detail)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return strings.Join(plan, "\n")
}

// checkPlan fails t unless plan holds every want and scans no table without an index.
func checkPlan(t *testing.T, plan string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(plan, w) {
			t.Errorf("plan lacks %q:\n%s", w, plan)
		}
	}
	for _, step := range strings.Split(plan, "\n") {
		if strings.HasPrefix(step, "SCAN ") && !strings.Contains(step, "USING") {
			t.Errorf("plan scans a table (%s):\n%s", step, plan)
		}
	}
}

func openSQLite(t *testing.T) *DB {
	t.Helper()
	db, err := Open(context.Background(), Config{DataDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// TestWatchedQueryPlan checks on SQLite that each half of watchedQuery starts from
// its partial index of invoices, not from a scan of invoices or of every address.
func TestWatchedQueryPlan(t *testing.T) {
	db := openSQLite(t)
	checkPlan(t, queryPlan(t, db, watchedQuery, "devnet", "ethereum", 0),
		"USING INDEX invoices_open_expiry", "USING INDEX invoices_closed_expiry (expires_at>?)")
}

// TestWatchedSinceQueryPlan checks on SQLite that the watcher's read of changed
// quotes is a range of the quote_seq index, then invoices by primary key.
func TestWatchedSinceQueryPlan(t *testing.T) {
	db := openSQLite(t)
	checkPlan(t, queryPlan(t, db, watchedSinceQuery, "devnet", "ethereum", 0),
		"USING INDEX payment_addresses_quote_seq (environment=? AND network=? AND quote_seq>?)", "SEARCH i USING INDEX sqlite_autoindex_invoices_1 (id=?)")
}

// TestSessionQueryPlan checks on SQLite that both lookups of a payment session
// search a unique index, not the table: for a token that names its invoice the
// primary key or the index of session_token_hash (SQLite takes either), for an
// older one the latter.
func TestSessionQueryPlan(t *testing.T) {
	db := openSQLite(t)
	checkPlan(t, queryPlan(t, db, sessionByIDQuery, "x", []byte{1}), "SEARCH invoices USING INDEX sqlite_autoindex_invoices_")
	checkPlan(t, queryPlan(t, db, sessionByHashQuery, []byte{1}), "SEARCH invoices USING INDEX sqlite_autoindex_invoices_2 (session_token_hash=?)")
}

// TestInvoicePageQueryPlan checks on SQLite that a page after a cursor is a range
// of a list index that starts at the cursor, in both directions and with the
// usual filters, not a read of every newer row.
func TestInvoicePageQueryPlan(t *testing.T) {
	ctx := context.Background()
	db := openSQLite(t)
	m, err := db.CreateMerchant(ctx, kassa.MerchantCreate{Name: "Shop", Email: "plan@example.com", Password: "correct horse"})
	if err != nil {
		t.Fatal(err)
	}
	p := kassa.Principal{MerchantID: m.ID, Environment: kassa.Devnet}
	inv, _, err := invoicing.Over(db).CreateInvoice(ctx, p, kassa.InvoiceCreate{Amount: 100}, nil)
	if err != nil {
		t.Fatal(err)
	}
	env, customer := kassa.Devnet, "c1"
	tests := []struct {
		name string
		f    kassa.InvoiceFilter
		want string
	}{
		{"after", kassa.InvoiceFilter{StartingAfter: inv.ID}, "(created_at,id)<(?,?)"},
		{"before", kassa.InvoiceFilter{EndingBefore: inv.ID}, "(created_at,id)>(?,?)"},
		{"environment", kassa.InvoiceFilter{Environment: &env, StartingAfter: inv.ID}, "environment=? AND (created_at,id)<(?,?)"},
		{"customer", kassa.InvoiceFilter{CustomerID: &customer, StartingAfter: inv.ID}, "customer_id=? AND (created_at,id)<(?,?)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.f.MerchantID = m.ID
			pg, err := db.invoicePageQuery(ctx, tt.f, db.clock())
			if err != nil {
				t.Fatal(err)
			}
			checkPlan(t, queryPlan(t, db, pg.query, pg.args...), tt.want)
		})
	}
	t.Run("needs attention", func(t *testing.T) { // the few ids of the two small indexes, not a walk of the merchant's
		pg, err := db.invoicePageQuery(ctx, kassa.InvoiceFilter{MerchantID: m.ID, Environment: &env, NeedsAttention: true}, db.clock())
		if err != nil {
			t.Fatal(err)
		}
		plan := queryPlan(t, db, pg.query, pg.args...)
		checkPlan(t, strings.ReplaceAll(plan, "SCAN attention\n", ""), "SEARCH invoices USING COVERING INDEX invoices_underpaid (merchant_id=?)",
			"SCAN receipts USING INDEX receipts_set_aside", "SEARCH invoices USING INDEX sqlite_autoindex_invoices_1 (id=?)")
		if strings.Contains(plan, "SCAN invoices") {
			t.Errorf("plan scans invoices:\n%s", plan)
		}
	})
	t.Run("search", func(t *testing.T) { // candidates by rowid and the unindexed tail by rowid range
		pg, err := db.invoicePageQuery(ctx, kassa.InvoiceFilter{MerchantID: m.ID, Query: "blue mug"}, db.clock())
		if err != nil {
			t.Fatal(err)
		}
		plan := queryPlan(t, db, pg.query, pg.args...)
		checkPlan(t, plan, "SEARCH invoices USING INTEGER PRIMARY KEY (rowid>?)")
		if strings.Contains(plan, "SCAN invoices") {
			t.Errorf("plan scans invoices:\n%s", plan)
		}
	})
}

// TestInvoiceTotalsQueryPlan checks on SQLite that InvoiceTotals reads invoices
// only along an index (the rollup's days, this hour's expiries, the edge days of
// a date filter, or a customer's invoices) and the needs-attention count starts
// from its two small indexes.
func TestInvoiceTotalsQueryPlan(t *testing.T) {
	ctx := context.Background()
	db := openSQLite(t)
	m, err := db.CreateMerchant(ctx, kassa.MerchantCreate{Name: "Shop", Email: "plan@example.com", Password: "correct horse"})
	if err != nil {
		t.Fatal(err)
	}
	env, customer := kassa.Devnet, "c1"
	from, to := db.clock().Add(-50*time.Hour), db.clock().Add(-time.Hour)
	tests := []struct {
		name string
		f    kassa.InvoiceTotalsFilter
		want []string
	}{
		{"all", kassa.InvoiceTotalsFilter{Environment: &env}, []string{
			"SEARCH invoice_totals USING PRIMARY KEY (merchant_id=? AND environment=?)",
			"SEARCH invoices USING INDEX invoices_open_expiry (expires_at>? AND expires_at<?)"}},
		{"dates", kassa.InvoiceTotalsFilter{Environment: &env, CreatedGTE: &from, CreatedLTE: &to}, []string{
			"SEARCH invoice_totals USING PRIMARY KEY (merchant_id=? AND environment=? AND day>? AND day<?)",
			"SEARCH invoices USING INDEX invoices_merchant_env_search (merchant_id=? AND environment=? AND created_at>? AND created_at<?)"}},
		{"customer", kassa.InvoiceTotalsFilter{CustomerID: &customer}, []string{
			"SEARCH invoices USING INDEX invoices_merchant_customer (merchant_id=? AND customer_id=?)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.f.MerchantID = m.ID
			q := db.totalsQuery(tt.f, micros(db.clock()))
			plan := queryPlan(t, db, q.sql, q.args...)
			checkPlan(t, strings.ReplaceAll(plan, "SCAN t\n", ""), tt.want...) // t: the union's few rows
			if strings.Contains(plan, "SCAN invoices") {
				t.Errorf("plan scans invoices:\n%s", plan)
			}
		})
	}
	t.Run("attention", func(t *testing.T) {
		w, err := db.invoiceWhere(ctx, kassa.InvoiceFilter{MerchantID: m.ID, Environment: &env, NeedsAttention: true}, db.clock())
		if err != nil {
			t.Fatal(err)
		}
		from := db.attentionFrom(w, m.ID, db.clock())
		w.conds = append(w.conds, "id = attention_id")
		plan := queryPlan(t, db, "SELECT COUNT(*)"+from+w.String(), w.args...)
		checkPlan(t, strings.ReplaceAll(plan, "SCAN attention\n", ""), // the few ids of the two indexes
			"SEARCH invoices USING COVERING INDEX invoices_underpaid (merchant_id=?)", "SCAN receipts USING INDEX receipts_set_aside",
			"SEARCH invoices USING INDEX sqlite_autoindex_invoices_1 (id=?)")
		if strings.Contains(plan, "SCAN invoices") {
			t.Errorf("plan scans invoices:\n%s", plan)
		}
	})
}
