package store

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// newTestGroup opens a SQLite file with a group-commit writer whose announced
// transactions are waited for up to a minute, so a test sees who waits for whom.
func newTestGroup(t *testing.T) *groupCommit {
	t.Helper()
	w := openSQLiteDB(filepath.Join(t.TempDir(), "g.db") + "?" + sqlitePragmas + "&_txlock=immediate")
	w.SetMaxOpenConns(1)
	t.Cleanup(func() { w.Close() })
	if _, err := w.Exec("CREATE TABLE t (v INTEGER)"); err != nil {
		t.Fatal(err)
	}
	g := newGroupCommit(newPool(w, true))
	g.gatherFor = time.Minute
	t.Cleanup(g.stop)
	return g
}

// insert queues a transaction inserting v, announced by told (nil: not
// announced), and returns where its outcome arrives.
func insert(g *groupCommit, told *announcement, v int) <-chan error {
	done := make(chan error, 1)
	go func() {
		_, err := g.do(context.Background(), nil, told, func(q txq) error {
			_, err := q.ExecContext(context.Background(), "INSERT INTO t (v) VALUES ($1)", v)
			return err
		})
		done <- err
	}()
	return done
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

func TestGroupCommitWaitsForAnnounced(t *testing.T) {
	tests := []struct {
		name       string
		announced  int // transactions announced before the first is queued
		queued     int // of those, how many are then queued (the rest withdraw)
		wantGroups int64
	}{
		{"alone, nothing coming", 0, 0, 1},
		{"one coming joins the first", 1, 1, 1},
		{"three coming join the first", 3, 3, 1},
		{"one withdrawn without queuing", 1, 0, 1},
		{"one of two withdrawn", 2, 1, 1},
		{"all of three withdrawn", 3, 0, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := newTestGroup(t)
			told := make([]*announcement, tt.announced)
			for i := range told {
				told[i] = g.announce()
			}
			outcomes := []<-chan error{insert(g, nil, 0)}
			if tt.announced > 0 {
				waitFor(t, "the writer to hold the group open", func() bool { return g.waiting.Load() == 1 })
			}
			for i, a := range told {
				if i < tt.queued {
					outcomes = append(outcomes, insert(g, a, i+1))
				} else {
					a.withdraw()
					a.withdraw() // a second call does nothing
				}
			}
			for _, o := range outcomes {
				if err := <-o; err != nil {
					t.Fatal(err)
				}
			}
			if got := g.groups.Load(); got != tt.wantGroups {
				t.Errorf("%d commits, want %d", got, tt.wantGroups)
			}
			var n int
			if err := g.p.QueryRowContext(context.Background(), "SELECT count(*) FROM t").Scan(&n); err != nil {
				t.Fatal(err)
			}
			if n != len(outcomes) {
				t.Errorf("%d rows, want %d", n, len(outcomes))
			}
		})
	}
}

// TestGroupCommitFailures: a job that fails leaves no row and gets its own error,
// alone (no savepoint: the transaction rolls back) or among others (its savepoint
// rolls back, the others commit).
func TestGroupCommitFailures(t *testing.T) {
	failed := errors.New("job failed")
	tests := []struct {
		name  string
		fails []bool // per job of one group, in queue order
	}{
		{"alone, succeeds", []bool{false}},
		{"alone, fails", []bool{true}},
		{"the middle of three fails", []bool{false, true, false}},
		{"the first of two fails", []bool{true, false}},
		{"all of three fail", []bool{true, true, true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := newTestGroup(t)
			job := func(v int) func(txq) error {
				return func(q txq) error {
					if _, err := q.ExecContext(context.Background(), "INSERT INTO t (v) VALUES ($1)", v); err != nil {
						return err
					}
					if tt.fails[v] {
						return failed
					}
					return nil
				}
			}
			told := make([]*announcement, len(tt.fails)-1)
			for i := range told {
				told[i] = g.announce()
			}
			outcomes := make([]chan error, len(tt.fails))
			for v := range tt.fails {
				outcomes[v] = make(chan error, 1)
				var a *announcement
				if v > 0 {
					a = told[v-1]
				}
				go func() {
					_, err := g.do(context.Background(), nil, a, job(v))
					outcomes[v] <- err
				}()
				if v == 0 && len(told) > 0 {
					waitFor(t, "the writer to hold the group open", func() bool { return g.waiting.Load() == 1 })
				}
			}
			var want []int
			for v, fails := range tt.fails {
				if err := <-outcomes[v]; fails != errors.Is(err, failed) || (!fails && err != nil) {
					t.Errorf("job %d: err %v, fails %v", v, err, fails)
				}
				if !fails {
					want = append(want, v)
				}
			}
			if got := g.groups.Load(); got != 1 {
				t.Errorf("%d commits, want 1", got)
			}
			rows, err := g.p.QueryContext(context.Background(), "SELECT v FROM t ORDER BY v")
			if err != nil {
				t.Fatal(err)
			}
			defer rows.Close()
			var got []int
			for rows.Next() {
				var v int
				if err := rows.Scan(&v); err != nil {
					t.Fatal(err)
				}
				got = append(got, v)
			}
			if !slices.Equal(got, want) {
				t.Errorf("rows %v, want %v", got, want)
			}
		})
	}
}
