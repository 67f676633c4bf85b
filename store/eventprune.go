package store

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"time"
)

// pruneBatch is how many rows one pruning statement deletes at most, so a large
// backlog never holds the writer for long.
const pruneBatch = 2000

// PruneEvents deletes events created before before, and the webhook deliveries
// (with their attempts) queued before it, in batches; it returns how many events.
func (db *DB) PruneEvents(ctx context.Context, before time.Time) (int64, error) {
	if _, err := db.deleteBatches(ctx, "webhook_deliveries", "id", before); err != nil {
		return 0, fmt.Errorf("store: prune events: %w", err)
	}
	n, err := db.pruneEventsBySeq(ctx, before)
	if err != nil {
		return n, fmt.Errorf("store: prune events: %w", err)
	}
	return n, nil
}

// pruneEventsBySeq deletes the events created before before, oldest first by key
// (pruneByKey). On SQLite events carry no index on created_at (migration 0019:
// every create wrote one entry to it for an hourly job); seq follows creation time
// closely, and an event a little out of order (clocks of several instances) is
// only kept a while longer, never deleted early.
func (db *DB) pruneEventsBySeq(ctx context.Context, before time.Time) (int64, error) {
	return db.pruneByKey(ctx, "events", "seq", "created_at < $3", micros(before))
}

// pruneByKey deletes the rows of table that match cond (its $3 is arg) walking the
// table in key order, an integer key that grows with insertion: it reads windows
// of pruneBatch rows from the oldest, deletes those of each window that match, and
// stops at a window where none did (the young end of the table) or at its end.
// Each window starts after the last, so rows deleted earlier in the run are not
// walked again, and each delete is one short write.
func (db *DB) pruneByKey(ctx context.Context, table, key, cond string, arg any) (int64, error) {
	window := "SELECT MAX(" + key + "), COUNT(*) FROM (SELECT " + key + " FROM " + table + " WHERE " + key +
		" > $1 ORDER BY " + key + " LIMIT " + strconv.Itoa(pruneBatch) + ") w"
	del := "DELETE FROM " + table + " WHERE " + key + " > $1 AND " + key + " <= $2 AND " + cond
	var total, after int64
	for ctx.Err() == nil {
		var (
			last sql.Null[int64]
			rows int
		)
		if err := db.r.QueryRowContext(ctx, window, after).Scan(&last, &rows); err != nil || rows == 0 {
			return total, err
		}
		n, err := db.execCount(ctx, del, after, last.V, arg)
		if err != nil {
			return total, err
		}
		total += n
		if rows < pruneBatch || n == 0 {
			break
		}
		after = last.V
	}
	return total, nil
}

// deleteBatches deletes the rows of table created before before, pruneBatch at a
// time (key names the table's key column), and returns how many it deleted. The
// table needs an index on created_at.
func (db *DB) deleteBatches(ctx context.Context, table, key string, before time.Time) (int64, error) {
	q := "DELETE FROM " + table + " WHERE " + key + " IN (SELECT " + key + " FROM " + table +
		" WHERE created_at < $1 LIMIT " + strconv.Itoa(pruneBatch) + ")"
	var total int64
	for {
		n, err := db.execCount(ctx, q, micros(before))
		if err != nil {
			return total, err
		}
		total += n
		if n < pruneBatch || ctx.Err() != nil {
			return total, nil
		}
	}
}

// execCount runs q as one write and returns how many rows it changed.
func (db *DB) execCount(ctx context.Context, q string, args ...any) (int64, error) {
	var n int64
	err := db.write(ctx, func(w queryer) error {
		res, err := w.ExecContext(ctx, q, args...)
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	return n, err
}
