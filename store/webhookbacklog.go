package store

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/kassapay/kassa"
)

// WebhookBacklog is the state of the webhook delivery queue at one moment.
type WebhookBacklog struct {
	Pending int64 // deliveries not yet delivered or given up
	Due     int64 // of which due now: waiting for a worker, not for a retry time
	// OldestPending is when the oldest pending delivery was queued; zero when none.
	OldestPending time.Time
	// OldestDue is the earliest due time among due deliveries; zero when none. How
	// far it lies behind now is how far the workers are behind.
	OldestDue time.Time
}

// WebhookBacklog reads the queue's size and age as of now: one aggregate over the
// pending deliveries, which the partial index webhook_deliveries_due selects (the
// status is written into the SQL, not bound, so PostgreSQL's generic plans keep
// using it), so it costs what the pending rows cost, never the delivered history.
func (db *DB) WebhookBacklog(ctx context.Context, now time.Time) (WebhookBacklog, error) {
	var (
		b                     WebhookBacklog
		due                   sql.NullInt64
		oldestPend, oldestDue sql.NullInt64
	)
	err := db.r.QueryRowContext(ctx, `SELECT COUNT(*),
		SUM(CASE WHEN next_attempt_at <= $1 THEN 1 ELSE 0 END),
		MIN(created_at), MIN(CASE WHEN next_attempt_at <= $1 THEN next_attempt_at END)
		FROM webhook_deliveries WHERE status = '`+kassa.DeliveryPending+`'`,
		micros(now)).Scan(&b.Pending, &due, &oldestPend, &oldestDue)
	if err != nil {
		return WebhookBacklog{}, fmt.Errorf("store: webhook backlog: %w", err)
	}
	b.Due = due.Int64
	if oldestPend.Valid {
		b.OldestPending = fromMicros(oldestPend.Int64)
	}
	if oldestDue.Valid {
		b.OldestDue = fromMicros(oldestDue.Int64)
	}
	return b, nil
}
