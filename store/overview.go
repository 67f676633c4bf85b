package store

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/kassapay/kassa"
)

var _ kassa.OverviewStats = (*DB)(nil)

// microsPerDay is one day in the stores' unix-microsecond times.
const microsPerDay = 24 * 60 * 60 * 1_000_000

// VolumeByDay sums the merchant's invoices paid since since, per UTC day of their
// paid_at, in one grouped query (integer division on both engines), and adds the
// refunds made since since on the days they were made (dayRefunds).
func (db *DB) VolumeByDay(ctx context.Context, merchantID int64, env kassa.Environment, since time.Time) ([]kassa.DayTotal, error) {
	rows, err := db.r.QueryContext(ctx, `SELECT CAST(paid_at / `+strconv.Itoa(microsPerDay)+` AS BIGINT) AS day, COUNT(*),
		CAST(COALESCE(SUM(amount_paid), 0) AS BIGINT)
		FROM invoices WHERE merchant_id = $1 AND environment = $2 AND paid_at IS NOT NULL AND paid_at >= $3 AND status = $4
		GROUP BY 1 ORDER BY 1`, merchantID, string(env), micros(since), string(kassa.StatusPaid))
	if err != nil {
		return nil, fmt.Errorf("store: volume by day: %w", err)
	}
	defer rows.Close()
	days := map[int64]*kassa.DayTotal{}
	for rows.Next() {
		var day, count, volume int64
		if err := rows.Scan(&day, &count, &volume); err != nil {
			return nil, fmt.Errorf("store: volume by day: %w", err)
		}
		days[day] = &kassa.DayTotal{Day: fromMicros(day * microsPerDay), Paid: count, Gross: kassa.Millis(volume)}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: volume by day: %w", err)
	}
	rows.Close()
	if err := db.dayRefunds(ctx, merchantID, env, since, days); err != nil {
		return nil, err
	}
	if err := db.dayInvoiceRefunds(ctx, merchantID, env, since, days); err != nil {
		return nil, err
	}
	out := make([]kassa.DayTotal, 0, len(days))
	for _, d := range days {
		out = append(out, *d)
	}
	slices.SortFunc(out, func(a, b kassa.DayTotal) int { return a.Day.Compare(b.Day) })
	return out, nil
}

// FailingDeliveries counts the merchant's deliveries in env retrying now
// (pending after a failed attempt) and those that failed since since (a failed
// delivery is not touched again, so updated_at is when it failed), in one query.
func (db *DB) FailingDeliveries(ctx context.Context, merchantID int64, env kassa.Environment, since time.Time) (kassa.Failing, error) {
	var f kassa.Failing
	err := db.r.QueryRowContext(ctx, `SELECT
		(SELECT COUNT(*) FROM webhook_deliveries WHERE merchant_id = $1 AND environment = $2 AND status = $3 AND attempts > 0),
		(SELECT COUNT(*) FROM webhook_deliveries WHERE merchant_id = $1 AND environment = $2 AND status = $4 AND updated_at >= $5)`,
		merchantID, string(env), kassa.DeliveryPending, kassa.DeliveryFailed, micros(since)).Scan(&f.Retrying, &f.Failed)
	if err != nil {
		return kassa.Failing{}, fmt.Errorf("store: failing deliveries: %w", err)
	}
	return f, nil
}

// EventDeliveries lists the deliveries of eventIDs to the principal's endpoints
// in its environment, newest first, with their attempts.
func (db *DB) EventDeliveries(ctx context.Context, p kassa.Principal, eventIDs []string, limit int) ([]*kassa.WebhookDelivery, error) {
	ids := make([]string, 0, len(eventIDs))
	for _, id := range eventIDs {
		if storable(id) {
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		return []*kassa.WebhookDelivery{}, nil
	}
	limit = min(max(limit, 1), MaxListLimit)
	w := &where{}
	w.add("merchant_id = %s", p.MerchantID)
	w.add("environment = %s", string(p.Environment))
	w.in("event_id", ids)
	rows, err := db.r.QueryContext(ctx, "SELECT "+deliveryColumns+" FROM webhook_deliveries"+w.String()+
		" ORDER BY id DESC LIMIT "+strconv.Itoa(limit), w.args...)
	if err != nil {
		return nil, fmt.Errorf("store: event deliveries: %w", err)
	}
	out := []*kassa.WebhookDelivery{}
	for rows.Next() {
		d, err := scanDelivery(rows)
		if err != nil {
			rows.Close()
			return nil, fmt.Errorf("store: event deliveries: %w", err)
		}
		out = append(out, d)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: event deliveries: %w", err)
	}
	return out, db.attachAttempts(ctx, out)
}
