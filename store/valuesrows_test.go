package store

import (
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/kassapay/kassa"
)

// TestMultiRow: a one-row INSERT repeated as rows tuples, their placeholders
// renumbered row after row, quoted text left alone, and the placeholders after the
// tuple shared and moved past the rows.
func TestMultiRow(t *testing.T) {
	for _, tc := range []struct {
		single string
		rows   int
		want   string
		width  int
	}{
		{"INSERT INTO t (a, b) VALUES ($1, $2)", 1, "INSERT INTO t (a, b) VALUES ($1, $2)", 2},
		{"INSERT INTO t (a, b) VALUES ($1, $2)", 3, "INSERT INTO t (a, b) VALUES ($1, $2), ($3, $4), ($5, $6)", 2},
		{"INSERT INTO t (a, b, c, d) VALUES ($1, 0, ')$7(', $2)", 2,
			"INSERT INTO t (a, b, c, d) VALUES ($1, 0, ')$7(', $2), ($3, 0, ')$7(', $4)", 2},
		{"INSERT INTO t (a, b, c) VALUES ($1, $2, $2)", 2, "INSERT INTO t (a, b, c) VALUES ($1, $2, $2), ($3, $4, $4)", 2},
		{"INSERT INTO t (a, b) VALUES ($1, lower($2)) ON CONFLICT (a) DO UPDATE SET b = excluded.b WHERE t.c <= $3 OR t.d = $4", 3,
			"INSERT INTO t (a, b) VALUES ($1, lower($2)), ($3, lower($4)), ($5, lower($6)) ON CONFLICT (a) DO UPDATE SET b = excluded.b WHERE t.c <= $7 OR t.d = $8", 2},
	} {
		got, width := multiRow(tc.single, tc.rows)
		if got != tc.want || width != tc.width {
			t.Errorf("multiRow(%q, %d) =\n%q, %d\nwant\n%q, %d", tc.single, tc.rows, got, width, tc.want, tc.width)
		}
	}
}

// TestRowArgs: each row's own arguments in turn, then the first row's shared ones,
// for the create's idempotency record statement (ten per row, three shared).
func TestRowArgs(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	var rows [][]any
	for _, key := range []string{"a", "b"} {
		s := kassa.IdempotencyScope{MerchantID: 1, Environment: kassa.Devnet, Route: "POST /api/v1/invoices", Key: key}
		_, args := idempotencyInsert(s, "fp", 201, []byte("{}"), now)
		rows = append(rows, args)
		now = now.Add(time.Millisecond)
	}
	q, width := multiRow(idempotencyInsertSQL(t), 2)
	if width != 10 {
		t.Fatalf("width %d, want 10 (%s)", width, q)
	}
	args := rowArgs(width, rows)
	want := slices.Concat(rows[0][:10], rows[1][:10], rows[0][10:])
	same := func(a, b any) bool {
		if x, ok := a.([]byte); ok {
			y, ok := b.([]byte)
			return ok && string(x) == string(y)
		}
		return a == b
	}
	if len(args) != 23 || !slices.EqualFunc(args, want, same) || args[13] != "b" {
		t.Fatalf("args %v, want %v", args, want)
	}
}

func idempotencyInsertSQL(t *testing.T) string {
	t.Helper()
	q, _ := idempotencyInsert(kassa.IdempotencyScope{}, "", 0, nil, time.Time{})
	return q
}

// TestSplits: which errors of a batch have its creates run again one at a time.
func TestSplits(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want bool
	}{
		{fmt.Errorf("store: create invoices: %w", errBatchSplit), true},
		{fmt.Errorf("store: create invoices: %w", &pgconn.PgError{Severity: "ERROR", Code: "21000"}), true},
		{&pgconn.PgError{Severity: "FATAL", Code: "57P01"}, false}, // a shutdown: COMMIT may have happened
		{errors.New("unexpected EOF"), false},
		{nil, false},
	} {
		if got := splits(tc.err); got != tc.want {
			t.Errorf("splits(%v) = %v, want %v", tc.err, got, tc.want)
		}
	}
}
