package store

import (
	"context"
	"strings"
	"testing"
)

// TestWatchedQueryPlan checks on SQLite that each half of watchedQuery starts from
// its partial index of invoices, not from a scan of invoices or of every address.
func TestWatchedQueryPlan(t *testing.T) {
	ctx := context.Background()
	db, err := Open(ctx, Config{DataDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	rows, err := db.r.QueryContext(ctx, "EXPLAIN QUERY PLAN "+watchedQuery, "devnet", "ethereum", 0)
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
	all := strings.Join(plan, "\n")
	for _, want := range []string{"USING INDEX invoices_open_expiry", "USING INDEX invoices_closed_expiry (expires_at>?)"} {
		if !strings.Contains(all, want) {
			t.Errorf("plan lacks %q:\n%s", want, all)
		}
	}
	for _, step := range plan {
		if strings.HasPrefix(step, "SCAN ") && !strings.Contains(step, "USING INDEX") {
			t.Errorf("plan scans a table (%s):\n%s", step, all)
		}
	}
}
