package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"kassa"
)

var _ kassa.WebhookQueue = (*DB)(nil)

// newDeliveryID returns "whd_" and a time-ordered hex id.
func newDeliveryID(now time.Time) string {
	return "whd_" + strings.ReplaceAll(kassa.NewTimeUUID(now), "-", "")
}

// insertDelivery queues event e for endpoint ep, due at once, through q.
func insertDelivery(ctx context.Context, q queryer, ep *kassa.WebhookEndpoint, e *kassa.Event, now time.Time) (*kassa.WebhookDelivery, error) {
	d := &kassa.WebhookDelivery{ID: newDeliveryID(now), EndpointID: ep.ID, MerchantID: ep.MerchantID,
		Environment: ep.Environment, EventID: e.ID, EventType: e.Type, Status: kassa.DeliveryPending,
		NextAttemptAt: &now, CreatedAt: now, UpdatedAt: now, Log: []kassa.WebhookAttempt{}}
	_, err := q.ExecContext(ctx, `INSERT INTO webhook_deliveries (id, endpoint_id, merchant_id, environment, event_id,
		event_type, status, next_attempt_at, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8, $8)`,
		d.ID, d.EndpointID, d.MerchantID, string(d.Environment), d.EventID, d.EventType, d.Status, micros(now))
	if err != nil {
		return nil, fmt.Errorf("store: queue webhook delivery: %w", err)
	}
	return d, nil
}

// ClaimWebhookJobs leases up to limit due deliveries of enabled endpoints. On
// PostgreSQL the rows are taken FOR UPDATE SKIP LOCKED, so concurrent workers and
// instances split the queue; SQLite's single writer does the same. The lease token
// is new per claim, so a worker whose lease ran out cannot finish the job.
func (db *DB) ClaimWebhookJobs(ctx context.Context, limit int, lease time.Duration) ([]*kassa.WebhookJob, error) {
	var jobs []*kassa.WebhookJob
	now := db.clock()
	err := db.tx(ctx, func(tx txq) error {
		jobs = nil
		lock := ""
		if db.engine == EnginePostgres {
			lock = " FOR UPDATE OF d SKIP LOCKED"
		}
		rows, err := tx.QueryContext(ctx, `SELECT d.id, d.endpoint_id, d.merchant_id, d.environment, d.event_id,
			d.event_type, d.attempts, d.created_at, e.url, e.secret, e.previous_secret, e.previous_secret_until, ev.data,
			ev.created_at
			FROM webhook_deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id JOIN events ev ON ev.id = d.event_id
			WHERE d.status = $1 AND d.next_attempt_at <= $2 AND (d.lease_until IS NULL OR d.lease_until <= $2)
			AND e.status = $3 ORDER BY d.next_attempt_at LIMIT $4`+lock,
			kassa.DeliveryPending, micros(now), kassa.EndpointEnabled, limit)
		if err != nil {
			return fmt.Errorf("store: claim webhook deliveries: %w", err)
		}
		defer rows.Close()
		for rows.Next() {
			var (
				j                  kassa.WebhookJob
				env, data          string
				created, evCreated int64
				ep                 kassa.WebhookEndpoint
				prev               sql.Null[string]
				prevUntil          sql.Null[int64]
			)
			d := &j.Delivery
			if err := rows.Scan(&d.ID, &d.EndpointID, &d.MerchantID, &env, &d.EventID, &d.EventType, &d.Attempts,
				&created, &j.URL, &ep.Secret, &prev, &prevUntil, &data, &evCreated); err != nil {
				return fmt.Errorf("store: claim webhook deliveries: %w", err)
			}
			d.Environment, d.Status, d.CreatedAt = kassa.Environment(env), kassa.DeliveryPending, fromMicros(created)
			ep.PreviousSecret, ep.PreviousSecretUntil = prev.V, timeOrNil(prevUntil)
			j.Secrets = ep.SigningSecrets(now)
			ev := kassa.Event{ID: d.EventID, Type: d.EventType, Created: fromMicros(evCreated), Data: []byte(data)}
			if j.Payload, err = ev.MarshalJSON(); err != nil {
				return err
			}
			j.Lease = kassa.RandomToken(16)
			jobs = append(jobs, &j)
		}
		if err := rows.Err(); err != nil {
			return err
		}
		rows.Close()
		until := micros(now.Add(lease))
		for _, j := range jobs {
			if _, err := tx.ExecContext(ctx, "UPDATE webhook_deliveries SET lease = $1, lease_until = $2 WHERE id = $3",
				j.Lease, until, j.Delivery.ID); err != nil {
				return fmt.Errorf("store: claim webhook delivery: %w", err)
			}
		}
		return nil
	})
	return jobs, err
}

// FinishWebhookAttempt logs attempt a of a claimed job and applies
// kassa.PlanWebhook in one transaction: the delivery's next attempt or end, the
// endpoint's failure record, and its disabling (with a webhook_endpoint.disabled
// event) after a 410 or five days of failures. A job whose lease was lost is a
// conflict and changes nothing.
func (db *DB) FinishWebhookAttempt(ctx context.Context, job *kassa.WebhookJob, a kassa.WebhookAttempt, res kassa.WebhookResult) error {
	return db.tx(ctx, func(tx txq) error {
		var (
			status   string
			attempts int
			lease    sql.Null[string]
		)
		err := tx.QueryRowContext(ctx, "SELECT status, attempts, lease FROM webhook_deliveries WHERE id = $1"+db.forUpdate(),
			job.Delivery.ID).Scan(&status, &attempts, &lease)
		if errors.Is(err, sql.ErrNoRows) {
			return kassa.NotFound("webhook delivery")
		}
		if err != nil {
			return fmt.Errorf("store: finish webhook attempt: %w", err)
		}
		if status != kassa.DeliveryPending || lease.V != job.Lease {
			return kassa.Errorf(kassa.KindConflict, "lease_lost", "Delivery %s is no longer held by this worker.", job.Delivery.ID)
		}
		ep, err := scanEndpoint(tx.QueryRowContext(ctx, "SELECT "+endpointColumns+" FROM webhook_endpoints WHERE id = $1"+
			db.forUpdate(), job.Delivery.EndpointID))
		if err != nil {
			return fmt.Errorf("store: finish webhook attempt: endpoint: %w", err)
		}
		now := db.clock()
		a.Attempt = attempts + 1
		if _, err := tx.ExecContext(ctx, `INSERT INTO webhook_attempts (delivery_id, attempt, attempted_at, status_code,
			latency_ms, response_excerpt, error, succeeded) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
			job.Delivery.ID, a.Attempt, micros(a.At), nullIfZero(a.StatusCode), a.LatencyMS,
			strings.ToValidUTF8(strings.ReplaceAll(a.ResponseExcerpt, "\x00", ""), ""), nullIfEmpty(a.Error), a.Succeeded); err != nil {
			return fmt.Errorf("store: log webhook attempt: %w", err)
		}
		plan := kassa.PlanWebhook(a.Attempt, res, ep.FailingSince, now, kassa.Jitter)
		if _, err := tx.ExecContext(ctx, `UPDATE webhook_deliveries SET status = $1, attempts = $2, next_attempt_at = $3,
			lease = NULL, lease_until = NULL, updated_at = $4 WHERE id = $5`,
			plan.Status, a.Attempt, nullMicros(plan.NextAttemptAt), micros(now), job.Delivery.ID); err != nil {
			return fmt.Errorf("store: finish webhook attempt: %w", err)
		}
		if plan.Disable == "" && sameTime(ep.FailingSince, plan.FailingSince) {
			return nil
		}
		ep.FailingSince = plan.FailingSince
		if plan.Disable != "" {
			if err := disableEndpoint(ctx, tx, ep, plan.Disable, now); err != nil {
				return err
			}
		}
		if _, err := tx.ExecContext(ctx, `UPDATE webhook_endpoints SET status = $1, disabled_reason = $2,
			failing_since = $3, updated_at = $4 WHERE id = $5`, ep.Status, nullString(ep.DisabledReason),
			nullMicros(ep.FailingSince), micros(now), ep.ID); err != nil {
			return fmt.Errorf("store: finish webhook attempt: endpoint: %w", err)
		}
		if plan.Disable != "" {
			ep.UpdatedAt = now
			return writeEvents(ctx, tx, ep.MerchantID, ep.Environment, ep, now, kassa.EventWebhookEndpointDisabled)
		}
		return nil
	})
}

func nullIfZero(n int) any {
	if n == 0 {
		return nil
	}
	return n
}
