package store

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// claimSpec describes a leased work queue (orders to place, receipts to settle,
// webhook deliveries): which rows of a table are due, the order they are taken
// in, and what a claim sets on the rows it takes so no other claim takes them.
type claimSpec struct {
	table string // the queue's table
	key   string // its text primary key column
	due   string // the condition of claimable rows, binding args as $1, $2, ...
	args  []any
	order string // what the due rows are taken in order of
	limit int    // how many rows one claim takes at most
	lease []assign
}

// assign is a column a claim sets on the rows it takes, and its value.
type assign struct {
	col string
	val any
}

// claim takes up to s.limit due rows of s.table, in s.order, within tx; hands their
// keys to load, which reads what the caller needs of them and returns the keys it
// keeps; and sets s.lease on the kept rows. The due rows are picked from s.table
// alone, FOR UPDATE SKIP LOCKED on PostgreSQL, so concurrent claimers (workers,
// instances) split the queue instead of waiting on each other or taking the same
// rows; SQLite's single writer connection serializes claims. When nothing is due,
// load is not called and the claim writes nothing, so its transaction wakes no
// follower (see DB.tx).
func (db *DB) claim(ctx context.Context, tx txq, s claimSpec, load func(keys []string) ([]string, error)) error {
	lock := ""
	if db.engine == EnginePostgres {
		lock = " FOR UPDATE SKIP LOCKED"
	}
	n := len(s.args)
	keys, err := queryStrings(ctx, tx, "SELECT "+s.key+" FROM "+s.table+" WHERE "+s.due+
		" ORDER BY "+s.order+" LIMIT $"+strconv.Itoa(n+1)+lock, append(s.args[:n:n], s.limit)...)
	if err != nil {
		return fmt.Errorf("store: claim %s: %w", s.table, err)
	}
	if len(keys) == 0 {
		return nil
	}
	kept, err := load(keys)
	if err != nil || len(kept) == 0 {
		return err
	}
	sets := make([]string, len(s.lease))
	args := make([]any, 0, len(s.lease)+1)
	for i, a := range s.lease {
		args = append(args, a.val)
		sets[i] = a.col + " = $" + strconv.Itoa(i+1)
	}
	args = append(args, db.keyList(kept))
	if _, err := tx.ExecContext(ctx, "UPDATE "+s.table+" SET "+strings.Join(sets, ", ")+
		" WHERE "+db.keyIn(s.key, len(args)), args...); err != nil {
		return fmt.Errorf("store: claim %s: %w", s.table, err)
	}
	return nil
}

// keyIn is the condition "col is one of the keys bound as parameter $n", the keys
// bound with keyList. Its text is the same whatever the number of keys, so SQLite
// prepares the statement once (see pool).
func (db *DB) keyIn(col string, n int) string {
	ph := "$" + strconv.Itoa(n)
	if db.engine == EnginePostgres {
		return col + " = ANY(" + ph + ")"
	}
	return col + " IN (SELECT value FROM json_each(" + ph + "))"
}

// keyList binds keys for keyIn: a text array on PostgreSQL, a JSON array on SQLite.
func (db *DB) keyList(keys []string) any {
	if db.engine == EnginePostgres {
		return keys
	}
	b, _ := json.Marshal(keys) // strings always marshal
	return string(b)
}

// queryStrings runs a query of one text column and returns its values.
func queryStrings(ctx context.Context, q queryer, query string, args ...any) ([]string, error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, rows.Err()
}
