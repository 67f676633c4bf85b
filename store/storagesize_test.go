package store_test

import (
	"context"
	"database/sql"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/store"
)

// objSize is the space one table, index or TOAST relation takes.
type objSize struct {
	Table string // the table it belongs to
	Name  string // the object: the table itself, an index, "(toast)" or "(fsm+vm)"
	Bytes int64  // pages it holds, in bytes
}

// sizes is the space of every object of a database, keyed by Table+"/"+Name, and the
// database's total.
type sizes struct {
	objs  map[string]objSize
	total int64
}

// sizer measures a database's space as it is at rest, past the store.
type sizer struct {
	engine string
	raw    *sql.DB
}

// compact rebuilds every table and index the way each engine's VACUUM does:
// SQLite's VACUUM rewrites the file; PostgreSQL's VACUUM FULL rewrites each table
// of the schema. Rebuilt, the figures are the live bytes, without free space.
func (s sizer) compact(t *testing.T) {
	t.Helper()
	if s.engine == store.EngineSQLite {
		s.exec(t, "VACUUM")
		return
	}
	for _, tbl := range s.pgTables(t) {
		s.exec(t, "VACUUM (FULL, ANALYZE) "+tbl)
	}
}

// measure returns the space in use now. SQLite: the write-ahead log is checkpointed
// into the file first; the total is (page_count - freelist_count) * page_size, the
// objects are dbstat's pages by name. PostgreSQL: each table of the schema is
// vacuumed (dead rows' space made reusable, not returned), then
// pg_relation_size per table, TOAST relation, free-space and visibility maps, and index.
func (s sizer) measure(t *testing.T) sizes {
	t.Helper()
	if s.engine == store.EngineSQLite {
		return s.sqliteSizes(t)
	}
	return s.pgSizes(t)
}

func (s sizer) exec(t *testing.T, q string) {
	t.Helper()
	if _, err := s.raw.ExecContext(context.Background(), q); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
}

func (s sizer) sqliteSizes(t *testing.T) sizes {
	t.Helper()
	ctx := context.Background()
	s.exec(t, "PRAGMA wal_checkpoint(TRUNCATE)")
	var pages, free, pageSize int64
	for q, v := range map[string]*int64{"PRAGMA page_count": &pages, "PRAGMA freelist_count": &free, "PRAGMA page_size": &pageSize} {
		if err := s.raw.QueryRowContext(ctx, q).Scan(v); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	out := sizes{objs: map[string]objSize{}, total: (pages - free) * pageSize}
	rows, err := s.raw.QueryContext(ctx, `SELECT d.name, COALESCE(m.tbl_name, d.name), SUM(d.pgsize)
		FROM dbstat AS d LEFT JOIN sqlite_schema AS m ON m.name = d.name GROUP BY d.name`)
	if err != nil {
		t.Fatalf("dbstat: %v", err)
	}
	defer rows.Close()
	for rows.Next() {
		var o objSize
		if err := rows.Scan(&o.Name, &o.Table, &o.Bytes); err != nil {
			t.Fatal(err)
		}
		out.objs[o.Table+"/"+o.Name] = o
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// pgTables returns the tables of the schema the DSN's search_path selects.
func (s sizer) pgTables(t *testing.T) []string {
	t.Helper()
	rows, err := s.raw.QueryContext(context.Background(),
		"SELECT tablename FROM pg_tables WHERE schemaname = current_schema() ORDER BY tablename")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			t.Fatal(err)
		}
		out = append(out, name)
	}
	return out
}

func (s sizer) pgSizes(t *testing.T) sizes {
	t.Helper()
	for _, tbl := range s.pgTables(t) {
		s.exec(t, "VACUUM (ANALYZE) "+tbl)
	}
	rows, err := s.raw.QueryContext(context.Background(), `
		SELECT c.relname, c.relname, pg_relation_size(c.oid, 'main')
		FROM pg_class c WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind = 'r'
		UNION ALL
		SELECT c.relname, '(fsm+vm)', pg_relation_size(c.oid, 'fsm') + pg_relation_size(c.oid, 'vm')
		FROM pg_class c WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind = 'r'
		UNION ALL
		SELECT c.relname, '(toast)', pg_total_relation_size(c.reltoastrelid)
		FROM pg_class c WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind = 'r' AND c.reltoastrelid <> 0
		UNION ALL
		SELECT t.relname, i.relname, pg_relation_size(i.oid)
		FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_class t ON t.oid = x.indrelid
		WHERE t.relnamespace = current_schema()::regnamespace`)
	if err != nil {
		t.Fatalf("pg sizes: %v", err)
	}
	defer rows.Close()
	out := sizes{objs: map[string]objSize{}}
	for rows.Next() {
		var o objSize
		if err := rows.Scan(&o.Table, &o.Name, &o.Bytes); err != nil {
			t.Fatal(err)
		}
		out.objs[o.Table+"/"+o.Name] = o
		out.total += o.Bytes
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// stage is one measurement of the report.
type stage struct {
	name string
	s    sizes
}

// storageTable renders bytes per invoice (each stage less the baseline, over n)
// for every object that holds any, grouped by table, largest first, then the total.
func storageTable(base sizes, stages []stage, n int) string {
	perInv := func(s sizes, key string) float64 {
		return float64(s.objs[key].Bytes-base.objs[key].Bytes) / float64(n)
	}
	keys := map[string]objSize{}
	for _, st := range stages {
		for k, o := range st.s.objs {
			if o.Bytes != base.objs[k].Bytes {
				keys[k] = o
			}
		}
	}
	tableBytes := map[string]float64{}
	for k, o := range keys {
		tableBytes[o.Table] += perInv(stages[0].s, k)
	}
	order := make([]string, 0, len(keys))
	for k := range keys {
		order = append(order, k)
	}
	sort.Slice(order, func(i, j int) bool {
		a, b := keys[order[i]], keys[order[j]]
		if a.Table != b.Table {
			if tableBytes[a.Table] != tableBytes[b.Table] {
				return tableBytes[a.Table] > tableBytes[b.Table]
			}
			return a.Table < b.Table
		}
		if pa, pb := perInv(stages[0].s, order[i]), perInv(stages[0].s, order[j]); pa != pb {
			return pa > pb
		}
		return a.Name < b.Name
	})
	var b strings.Builder
	b.WriteString("| table | object |")
	for _, st := range stages {
		fmt.Fprintf(&b, " %s |", st.name)
	}
	b.WriteString("\n|---|---|" + strings.Repeat("---|", len(stages)) + "\n")
	for _, k := range order {
		o := keys[k]
		name := o.Name
		if name == o.Table {
			name = "(rows)"
		}
		fmt.Fprintf(&b, "| %s | %s |", o.Table, name)
		for _, st := range stages {
			fmt.Fprintf(&b, " %.0f |", perInv(st.s, k))
		}
		b.WriteString("\n")
	}
	b.WriteString("| **total** | |")
	for _, st := range stages {
		fmt.Fprintf(&b, " **%.0f** |", float64(st.s.total-base.total)/float64(n))
	}
	b.WriteString("\n")
	return b.String()
}

// reportColumns are the columns whose mean stored size the report gives.
var reportColumns = map[string][]string{
	"invoices": {"id", "session_token_hash", "description", "metadata", "invoice_title", "invoice_footer",
		"payment_return_url", "status", "environment", "invoice_type", "currency"},
	"events":           {"id", "type", "object_id", "environment", "data", "data_z"},
	"idempotency_keys": {"idempotency_key", "route", "environment", "fingerprint", "owner", "body"},
}

// columnReport gives the mean stored bytes of reportColumns and of each table's
// whole row (SQLite: dbstat's payload over the rows; PostgreSQL: pg_column_size of
// the row), and the mean size of the events' data inflated and as stored.
func columnReport(t *testing.T, sz sizer) string {
	t.Helper()
	ctx := context.Background()
	var b strings.Builder
	b.WriteString("mean stored bytes per row and column:\n")
	for _, tbl := range []string{"invoices", "events", "idempotency_keys"} {
		var row float64
		q := "SELECT COALESCE(avg(pg_column_size(x.*)), 0) FROM " + tbl + " x"
		if sz.engine == store.EngineSQLite {
			q = "SELECT CAST(SUM(payload) AS REAL) / (SELECT COUNT(*) FROM " + tbl + ") FROM dbstat WHERE name = '" + tbl + "' AND pagetype = 'leaf'"
		}
		if err := sz.raw.QueryRowContext(ctx, q).Scan(&row); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		fmt.Fprintf(&b, "  %s: row %.0f;", tbl, row)
		for _, col := range reportColumns[tbl] {
			expr := "pg_column_size(" + col + ")"
			if sz.engine == store.EngineSQLite {
				expr = "length(CAST(" + col + " AS BLOB))"
			}
			var v sql.NullFloat64
			if err := sz.raw.QueryRowContext(ctx, "SELECT avg("+expr+") FROM "+tbl).Scan(&v); err != nil {
				t.Fatalf("%s.%s: %v", tbl, col, err)
			}
			fmt.Fprintf(&b, " %s %.0f", col, v.Float64)
		}
		b.WriteString("\n")
	}
	rows, err := sz.raw.QueryContext(ctx, "SELECT data_z FROM events WHERE data_z IS NOT NULL")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var n, raw, z int
	for rows.Next() {
		var frame []byte
		if err := rows.Scan(&frame); err != nil {
			t.Fatal(err)
		}
		data, err := kassa.Inflate(frame)
		if err != nil {
			t.Fatal(err)
		}
		n, raw, z = n+1, raw+len(data), z+len(frame)
	}
	if n > 0 {
		fmt.Fprintf(&b, "  events' data: mean %d bytes of JSON, stored deflated in %d\n", raw/n, z/n)
	}
	return b.String()
}
