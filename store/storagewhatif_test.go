package store_test

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/kassapay/kassa/store"
)

// The what-ifs of the storage report: copies of the invoices, events and
// idempotency_keys tables built as a proposal would build them, filled from the
// real rows in creation order, measured beside a copy built as today (the control,
// which should come out close to the real table). Nothing of the store changes.

// invoiceIndexSets are the secondary indexes of the invoice copies: today's (their
// lists newest first, so each new invoice goes in at the left end of the B-tree,
// where a full page splits in two halves), and a proposal: the same orders ascending
// (read backwards for newest first; a new invoice goes in at the right end, which
// both engines fill before they split) and the customer index only over invoices
// with a customer.
var invoiceIndexSets = []struct{ name, ddl string }{
	{"today", `CREATE INDEX %[1]s_list ON %[1]s (merchant_id, created_at DESC, id DESC);
		CREATE INDEX %[1]s_customer ON %[1]s (merchant_id, customer_id, created_at DESC, id DESC);
		CREATE INDEX %[1]s_search ON %[1]s (merchant_id, environment, created_at DESC, id DESC, status, expires_at, amount_pending, customer_id, description);
		CREATE INDEX %[1]s_expiry ON %[1]s (expires_at);
		CREATE INDEX %[1]s_open_expiry ON %[1]s (expires_at) WHERE status IN ('unpaid', 'underpaid')`},
	{"ascending, customer partial", `CREATE INDEX %[1]s_list ON %[1]s (merchant_id, created_at, id);
		CREATE INDEX %[1]s_customer ON %[1]s (merchant_id, customer_id, created_at, id) WHERE customer_id IS NOT NULL;
		CREATE INDEX %[1]s_search ON %[1]s (merchant_id, environment, created_at, id, status, expires_at, amount_pending, customer_id, description);
		CREATE INDEX %[1]s_expiry ON %[1]s (expires_at);
		CREATE INDEX %[1]s_open_expiry ON %[1]s (expires_at) WHERE status IN ('unpaid', 'underpaid')`},
}

// whatIfReport builds the copies, measures them in bytes per row (n rows each)
// and drops them. (The copies with events' data and saved responses deflated are
// gone: both are stored deflated now.)
func whatIfReport(t *testing.T, sz sizer, n int) string {
	t.Helper()
	var copies []string
	for i, set := range invoiceIndexSets {
		name := fmt.Sprintf("w_inv%d", i)
		sz.copyTable(t, "invoices", name, "")
		for _, ddl := range strings.Split(fmt.Sprintf(set.ddl, name), ";") {
			sz.exec(t, ddl)
		}
		sz.exec(t, "INSERT INTO "+name+" SELECT * FROM invoices ORDER BY created_at, id")
		copies = append(copies, name)
	}
	sz.copyTable(t, "events", "w_ev", "")
	sz.exec(t, "INSERT INTO w_ev SELECT * FROM events ORDER BY seq")
	copies = append(copies, "w_ev")
	sz.copyTable(t, "idempotency_keys", "w_idem", "")
	sz.exec(t, "INSERT INTO w_idem SELECT * FROM idempotency_keys ORDER BY created_at")
	copies = append(copies, "w_idem")
	if sz.engine == store.EngineSQLite {
		sz.copyTable(t, "idempotency_keys", "w_idem_rowid", "rowid")
		sz.exec(t, "INSERT INTO w_idem_rowid SELECT * FROM idempotency_keys ORDER BY created_at")
		copies = append(copies, "w_idem_rowid")
	}

	s := sz.measure(t)
	var b strings.Builder
	b.WriteString("| copy | object | B/row |\n|---|---|---|\n")
	keys := make([]string, 0, len(s.objs))
	for k := range s.objs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, c := range copies {
		var total int64
		for _, k := range keys {
			if o := s.objs[k]; o.Table == c && o.Bytes > 0 {
				fmt.Fprintf(&b, "| %s | %s | %.0f |\n", c, o.Name, float64(o.Bytes)/float64(n))
				total += o.Bytes
			}
		}
		fmt.Fprintf(&b, "| %s | **total** | **%.0f** |\n", c, float64(total)/float64(n))
	}
	for _, c := range copies {
		sz.exec(t, "DROP TABLE "+c)
	}
	return b.String()
}

// copyTable creates an empty copy to of table from with its primary key and unique
// constraints, without its other indexes. variant "rowid" makes a WITHOUT ROWID
// table of SQLite an ordinary one, its primary key a separate index.
func (s sizer) copyTable(t *testing.T, from, to, variant string) {
	t.Helper()
	if s.engine == store.EnginePostgres {
		s.exec(t, "CREATE TABLE "+to+" (LIKE "+from+" INCLUDING DEFAULTS)")
		rows, err := s.raw.Query(`SELECT pg_get_constraintdef(oid) FROM pg_constraint
			WHERE conrelid = $1::regclass AND contype IN ('p', 'u')`, from)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var defs []string
		for rows.Next() {
			var def string
			if err := rows.Scan(&def); err != nil {
				t.Fatal(err)
			}
			defs = append(defs, def)
		}
		for _, def := range defs {
			s.exec(t, "ALTER TABLE "+to+" ADD "+def)
		}
		return
	}
	var ddl string
	if err := s.raw.QueryRow("SELECT sql FROM sqlite_schema WHERE type = 'table' AND name = ?", from).Scan(&ddl); err != nil {
		t.Fatal(err)
	}
	// A table renamed by a migration keeps its name quoted in its DDL.
	ddl = strings.Replace(strings.Replace(ddl, `CREATE TABLE "`+from+`"`, "CREATE TABLE "+from, 1),
		"CREATE TABLE "+from, "CREATE TABLE "+to, 1)
	ddl = strings.ReplaceAll(ddl, "REFERENCES merchants (id)", "")
	if variant == "rowid" {
		ddl = strings.Replace(ddl, "WITHOUT ROWID", "", 1)
	}
	s.exec(t, ddl)
}
