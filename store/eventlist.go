package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"strconv"

	"github.com/kassapay/kassa"
)

// Events returns a page of the merchant's events in one environment that the
// filter's scope may see, newest first, and whether more exist in the paging
// direction. Cursors are event ids of the same merchant, environment and scope.
func (db *DB) Events(ctx context.Context, f kassa.EventFilter) ([]*kassa.Event, bool, error) {
	if f.StartingAfter != "" && f.EndingBefore != "" {
		return nil, false, kassa.Invalidf("ending_before", "invalid_cursor",
			"starting_after and ending_before cannot be used together.")
	}
	limit := f.Limit
	if limit <= 0 {
		limit = DefaultListLimit
	}
	limit = min(limit, MaxListLimit)
	types := scopeTypes(f.Scope, f.Types)
	if len(types) == 0 {
		return []*kassa.Event{}, false, nil
	}
	w := &where{}
	w.add("merchant_id = %s", f.MerchantID)
	w.add("environment = %s", string(f.Environment))
	w.in("type", types)
	w.in("object_id", f.ObjectIDs)
	if f.CreatedGTE != nil {
		w.add("created_at >= %s", micros(*f.CreatedGTE))
	}
	if f.CreatedLTE != nil {
		w.add("created_at <= %s", micros(*f.CreatedLTE))
	}
	order := " ORDER BY seq DESC"
	cursor, param, backward := f.StartingAfter, "starting_after", false
	if f.EndingBefore != "" {
		cursor, param, backward = f.EndingBefore, "ending_before", true
	}
	if cursor != "" {
		e, err := db.Event(ctx, f.MerchantID, f.Environment, f.Scope, cursor)
		if kassa.ErrorKindOf(err) == kassa.KindNotFound {
			return nil, false, kassa.Invalidf(param, "invalid_cursor", "%s is not an event id of this merchant.", param)
		}
		if err != nil {
			return nil, false, err
		}
		if backward {
			w.add("seq > %s", e.Pos.Seq)
			order = " ORDER BY seq ASC"
		} else {
			w.add("seq < %s", e.Pos.Seq)
		}
	}
	out, err := db.queryEvents(ctx, "SELECT "+db.eventColumns()+" FROM events"+w.String()+order+
		" LIMIT "+strconv.Itoa(limit+1), w.args...)
	if err != nil {
		return nil, false, err
	}
	out, more := trimPage(out, limit, backward)
	return out, more, nil
}

// The feed. On SQLite one writer commits events in seq order, so seq is the feed
// order. On PostgreSQL seq is taken at insert, not at commit, so the feed orders by
// the writing transaction's id, then seq, and shows only events below the oldest
// transaction still running (the snapshot's xmin): no later commit can place an
// event before one a reader has already passed.

// feedWhere returns the condition "after $a, $b and stable" for the engine.
func (db *DB) feedWhere(w *where, pos kassa.FeedPos) {
	if db.engine == EnginePostgres {
		w.add("(tx, seq) > (%s::text::xid8, %s)", strconv.FormatInt(pos.Tx, 10), pos.Seq)
		w.conds = append(w.conds, "tx < pg_snapshot_xmin(pg_current_snapshot())")
		return
	}
	w.add("seq > %s", pos.Seq)
}

// feedOrder is the feed's ORDER BY. On PostgreSQL the columns are qualified: the
// select list's tx::text::bigint is an output column named tx too, and ORDER BY tx
// would sort by it, which the (tx, seq) indexes cannot deliver (a resumed stream's
// replay sorted every later event of the merchant: 90 ms instead of 2 ms at 50,000).
func (db *DB) feedOrder() string {
	if db.engine == EnginePostgres {
		return " ORDER BY events.tx, events.seq"
	}
	return " ORDER BY seq"
}

// FeedHead returns the position after which newly committed events will appear.
func (db *DB) FeedHead(ctx context.Context) (kassa.FeedPos, error) {
	var (
		pos kassa.FeedPos
		err error
	)
	if db.engine == EnginePostgres {
		// Everything below xmin is settled; what is at or above it may still come.
		err = db.r.QueryRowContext(ctx, "SELECT pg_snapshot_xmin(pg_current_snapshot())::text::bigint - 1").Scan(&pos.Tx)
		pos.Seq = math.MaxInt64
	} else {
		var seq sql.Null[int64]
		err = db.r.QueryRowContext(ctx, "SELECT MAX(seq) FROM events").Scan(&seq)
		pos.Seq = seq.V
	}
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return pos, fmt.Errorf("store: feed head: %w", err)
	}
	return pos, nil
}

// FeedAfter returns up to limit committed events of every merchant after pos, in
// feed order.
func (db *DB) FeedAfter(ctx context.Context, pos kassa.FeedPos, limit int) ([]*kassa.Event, error) {
	w := &where{}
	db.feedWhere(w, pos)
	return db.queryEvents(ctx, "SELECT "+db.eventColumns()+" FROM events"+w.String()+db.feedOrder()+
		" LIMIT "+strconv.Itoa(max(limit, 1)), w.args...)
}

// MerchantFeedAfter returns up to limit committed events after pos of one merchant
// in env that scope may see, in feed order: the replay of a resumed stream.
func (db *DB) MerchantFeedAfter(ctx context.Context, merchantID int64, env kassa.Environment, scope kassa.Scope, pos kassa.FeedPos, limit int) ([]*kassa.Event, error) {
	w := &where{}
	w.add("merchant_id = %s", merchantID)
	w.add("environment = %s", string(env))
	w.in("type", scopeTypes(scope, nil))
	db.feedWhere(w, pos)
	return db.queryEvents(ctx, "SELECT "+db.eventColumns()+" FROM events"+w.String()+db.feedOrder()+
		" LIMIT "+strconv.Itoa(max(limit, 1)), w.args...)
}
