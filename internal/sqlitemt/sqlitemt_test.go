package sqlitemt

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"reflect"
	"testing"

	"golang.org/x/sync/errgroup"
	"modernc.org/libc"
)

// modes are the two ways Open gives connections.
var modes = []struct {
	name  string
	multi bool
}{{"multi-thread", true}, {"serialized", false}}

// TestHandle checks that Open(dsn, true) gives connections without a mutex and
// Open(dsn, false) connections with one, so the hook reaches the handle where
// it thinks it does; and that the hook writes through a handle only when it is
// an open connection to the file its DSN names.
func TestHandle(t *testing.T) {
	ctx := context.Background()
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			db := Open(filepath.Join(t.TempDir(), "h.db"), m.multi)
			defer db.Close()
			got, err := Serialized(ctx, db)
			if err != nil || got == m.multi {
				t.Errorf("Serialized = %v (%v), want %v", got, err, !m.multi)
			}
		})
	}
	plain := Open(filepath.Join(t.TempDir(), "plain.db"), false)
	defer plain.Close()
	withHandle(t, ctx, plain, func(tls *libc.TLS, h uintptr) {
		if err := checkHandle(tls, h, "/elsewhere/plain.db?_pragma=busy_timeout(5000)"); err != nil {
			t.Errorf("checkHandle of the right file: %v", err)
		}
		if err := checkHandle(tls, h, "/elsewhere/kassa.db?_pragma=busy_timeout(5000)"); err == nil {
			t.Error("checkHandle accepted a handle of another file")
		}
	})
}

// withHandle runs fn with the sqlite3* of one connection of pool, held meanwhile.
func withHandle(t *testing.T, ctx context.Context, pool *sql.DB, fn func(tls *libc.TLS, h uintptr)) {
	t.Helper()
	conn, err := pool.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if err := conn.Raw(func(dc any) error {
		h, err := handle(dc)
		if err != nil {
			return err
		}
		tls := libc.NewTLS()
		defer tls.Close()
		fn(tls, h)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}

// TestSameAnswers runs concurrent writes and reads through a writer and a pool
// of readers in each mode and compares what the readers finally see: without
// the connection mutex, database/sql's one-goroutine-per-connection rule is
// what keeps each connection safe. SQLite's memory is outside what the race
// detector watches, so a connection used by two goroutines at once would show
// only as a failure, a crash or a different answer.
func TestSameAnswers(t *testing.T) {
	var answers [][]string
	for _, m := range modes {
		answers = append(answers, concurrentRun(t, m.multi))
	}
	if !reflect.DeepEqual(answers[0], answers[1]) {
		t.Fatalf("multi-thread read %d rows, serialized %d, or they differ", len(answers[0]), len(answers[1]))
	}
}

// concurrentRun writes 400 rows from 8 goroutines while 8 others read, then
// returns every row.
func concurrentRun(t *testing.T, multi bool) []string {
	t.Helper()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "c.db")
	w := Open(path+"?_pragma=journal_mode(wal)&_pragma=busy_timeout(5000)&_txlock=immediate", multi)
	defer w.Close()
	w.SetMaxOpenConns(1)
	if _, err := w.ExecContext(ctx, "CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT, n INTEGER)"); err != nil {
		t.Fatal(err)
	}
	r := Open(path+"?_pragma=busy_timeout(5000)&_pragma=query_only(1)", multi)
	defer r.Close()
	var g errgroup.Group
	for k := range 8 {
		g.Go(func() error {
			for i := range 50 {
				if _, err := w.ExecContext(ctx, "INSERT INTO t (id, v, n) VALUES (?, ?, ?)", k*1000+i, fmt.Sprint("row ", k, i), i); err != nil {
					return err
				}
			}
			return nil
		})
		g.Go(func() error {
			for range 50 {
				if _, err := readAll(ctx, r); err != nil {
					return err
				}
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		t.Fatal(err)
	}
	rows, err := readAll(ctx, r)
	if err != nil || len(rows) != 400 {
		t.Fatalf("%d rows (%v), want 400", len(rows), err)
	}
	return rows
}

func readAll(ctx context.Context, db *sql.DB) ([]string, error) {
	rows, err := db.QueryContext(ctx, "SELECT id, v, n FROM t ORDER BY id")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var (
			id, n int
			v     string
		)
		if err := rows.Scan(&id, &v, &n); err != nil {
			return nil, err
		}
		out = append(out, fmt.Sprint(id, v, n))
	}
	return out, rows.Err()
}

// BenchmarkRead reads ten rows of thirty columns, as an invoice list page
// does, from two goroutines, in each mode.
func BenchmarkRead(b *testing.B) {
	ctx := context.Background()
	for _, m := range modes {
		b.Run(m.name, func(b *testing.B) {
			path := filepath.Join(b.TempDir(), "b.db")
			db := Open(path+"?_pragma=journal_mode(wal)", m.multi)
			defer db.Close()
			cols, vals := "", ""
			for i := range 30 {
				cols += fmt.Sprintf(", c%d TEXT", i)
				vals += fmt.Sprintf(", 'value of column %d'", i)
			}
			if _, err := db.ExecContext(ctx, "CREATE TABLE t (id INTEGER PRIMARY KEY"+cols+")"); err != nil {
				b.Fatal(err)
			}
			for i := range 100 {
				if _, err := db.ExecContext(ctx, fmt.Sprintf("INSERT INTO t VALUES (%d%s)", i, vals)); err != nil {
					b.Fatal(err)
				}
			}
			b.RunParallel(func(pb *testing.PB) {
				dest := make([]any, 31)
				for i := range dest {
					dest[i] = new(sql.RawBytes)
				}
				for pb.Next() {
					rows, err := db.QueryContext(ctx, "SELECT * FROM t ORDER BY id DESC LIMIT 10")
					if err != nil {
						b.Error(err)
						return
					}
					for rows.Next() {
						if err := rows.Scan(dest...); err != nil {
							b.Error(err)
						}
					}
					rows.Close()
				}
			})
		})
	}
}
