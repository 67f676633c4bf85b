package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/delivery"
)

// newDeliveryID returns "whd_" and a time-ordered hex id.
func newDeliveryID(now time.Time) string {
	return "whd_" + strings.ReplaceAll(kassa.NewTimeUUID(now), "-", "")
}

// insertDelivery queues event e for endpoint ep, due at once, in tx; its commit
// wakes the webhook worker (DB.Deliveries).
func insertDelivery(ctx context.Context, tx txq, ep *kassa.WebhookEndpoint, e *kassa.Event, now time.Time) (*kassa.WebhookDelivery, error) {
	d := newDelivery(ep, e, now)
	query, args := deliveryInsert(d, now)
	_, err := tx.ExecContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("store: queue webhook delivery: %w", err)
	}
	tx.queuedDelivery()
	return d, nil
}

// newDelivery is a delivery of e to ep, due at now.
func newDelivery(ep *kassa.WebhookEndpoint, e *kassa.Event, now time.Time) *kassa.WebhookDelivery {
	return &kassa.WebhookDelivery{ID: newDeliveryID(now), EndpointID: ep.ID, MerchantID: ep.MerchantID,
		Environment: ep.Environment, EventID: e.ID, EventType: e.Type, Status: kassa.DeliveryPending,
		NextAttemptAt: &now, CreatedAt: now, UpdatedAt: now, Log: []kassa.WebhookAttempt{}}
}

// deliveryInsert returns the statement that queues delivery d, due at now, and
// its arguments.
func deliveryInsert(d *kassa.WebhookDelivery, now time.Time) (string, []any) {
	return `INSERT INTO webhook_deliveries (id, endpoint_id, merchant_id, environment, event_id,
		event_type, status, next_attempt_at, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8, $8)`,
		[]any{d.ID, d.EndpointID, d.MerchantID, string(d.Environment), d.EventID, d.EventType, d.Status, micros(now)}
}

// ClaimWebhookJobs leases up to limit due deliveries (DB.claim). The due rows are
// picked from the deliveries alone (the partial index on next_attempt_at), so a
// claim costs the same with ten or a million queued; then their endpoints and
// events are read. One lease token per claim: a worker whose lease ran out cannot
// finish the jobs. A due delivery whose endpoint was disabled meanwhile, or whose
// event was pruned, is failed instead of sent, so it never blocks the head of the
// queue.
func (db *DB) ClaimWebhookJobs(ctx context.Context, limit int, lease time.Duration) ([]*delivery.Job, error) {
	var jobs []*delivery.Job
	now := db.clock()
	token := kassa.RandomBase32(16)
	err := db.tx(ctx, func(tx txq) error {
		jobs = nil
		return db.claim(ctx, tx, claimSpec{table: "webhook_deliveries", key: "id",
			due:   "status = $1 AND next_attempt_at <= $2 AND (lease_until IS NULL OR lease_until <= $2)",
			args:  []any{kassa.DeliveryPending, micros(now)},
			order: "next_attempt_at", limit: limit,
			lease: []assign{{"lease", token}, {"lease_until", micros(now.Add(lease))}},
		}, func(ids []string) ([]string, error) {
			var (
				held []string
				err  error
			)
			jobs, held, err = db.loadWebhookJobs(ctx, tx, ids, token, now)
			claimed := held
			for _, j := range jobs {
				claimed = append(claimed, j.Delivery.ID)
			}
			return claimed, err
		})
	})
	return jobs, err
}

// loadWebhookJobs reads the claimed deliveries ids with their endpoints and events,
// fails those that can no longer be sent and returns the others, leased by token,
// and apart the ids of those whose endpoint secret does not open: the claim leases
// them too, so they wait for the lease to end instead of coming back at the head
// of every claim ahead of the deliveries that can be sent.
func (db *DB) loadWebhookJobs(ctx context.Context, tx txq, ids []string, token string, now time.Time) ([]*delivery.Job, []string, error) {
	rows, err := tx.QueryContext(ctx, `SELECT d.id, d.endpoint_id, d.merchant_id, d.environment, d.event_id,
		d.event_type, d.attempts, d.created_at, e.status, e.url, e.secret, e.previous_secret, e.previous_secret_until,
		COALESCE(ev.data, ''), ev.data_z, COALESCE(ev.created_at, 0)
		FROM webhook_deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id
		LEFT JOIN events ev ON ev.id = d.event_id
		WHERE `+db.keyIn("d.id", 1)+" ORDER BY d.next_attempt_at", db.keyList(ids))
	if err != nil {
		return nil, nil, fmt.Errorf("store: claim webhook deliveries: %w", err)
	}
	defer rows.Close()
	var (
		jobs        []*delivery.Job
		stale, held []string
	)
	for rows.Next() {
		j, status, err := db.scanWebhookJob(rows, now)
		if errors.Is(err, errSecretUnreadable) {
			// Leased and left pending: claimed again when the lease ends, sent once
			// the secrets key that opens it is given (serve logged it at start).
			held = append(held, j.Delivery.ID)
			continue
		}
		if err != nil {
			return nil, nil, err
		}
		if status != kassa.EndpointEnabled || j.Payload == nil {
			stale = append(stale, j.Delivery.ID)
			continue
		}
		j.Lease = token
		jobs = append(jobs, j)
	}
	if err := rows.Err(); err != nil {
		return nil, nil, fmt.Errorf("store: claim webhook deliveries: %w", err)
	}
	rows.Close()
	if len(stale) > 0 {
		if _, err := tx.ExecContext(ctx, "UPDATE webhook_deliveries SET status = $1, next_attempt_at = NULL, updated_at = $2 WHERE "+
			db.keyIn("id", 3), kassa.DeliveryFailed, micros(now), db.keyList(stale)); err != nil {
			return nil, nil, fmt.Errorf("store: fail stale webhook deliveries: %w", err)
		}
	}
	return jobs, held, nil
}

// errSecretUnreadable marks a claimed delivery whose endpoint secret does not open;
// scanWebhookJob returns the delivery with it.
var errSecretUnreadable = errors.New("store: webhook secret cannot be opened")

// scanWebhookJob reads one claimed delivery with its endpoint's status, URL and
// opened secrets and its event, rendered as the API shows it.
func (db *DB) scanWebhookJob(rows *sql.Rows, now time.Time) (*delivery.Job, string, error) {
	var (
		j                  delivery.Job
		env, data, status  string
		created, evCreated int64
		ep                 kassa.WebhookEndpoint
		prev               sql.Null[string]
		prevUntil          sql.Null[int64]
		z                  []byte
	)
	d := &j.Delivery
	if err := rows.Scan(&d.ID, &d.EndpointID, &d.MerchantID, &env, &d.EventID, &d.EventType, &d.Attempts,
		&created, &status, &j.URL, &ep.Secret, &prev, &prevUntil, &data, &z, &evCreated); err != nil {
		return nil, "", fmt.Errorf("store: claim webhook deliveries: %w", err)
	}
	d.Environment, d.Status, d.CreatedAt = kassa.Environment(env), kassa.DeliveryPending, fromMicros(created)
	ep.PreviousSecretUntil = timeOrNil(prevUntil)
	if (data == "" && z == nil) || status != kassa.EndpointEnabled { // the event was pruned, or nothing is sent
		return &j, status, nil
	}
	var err error
	if ep.Secret, err = db.openEndpointSecret(ep.Secret, "secret", d.EndpointID); err == nil {
		ep.PreviousSecret, err = db.openEndpointSecret(prev.V, "previous_secret", d.EndpointID)
	}
	if err != nil { // the delivery is returned, for its id
		return &j, "", fmt.Errorf("%w: %w", errSecretUnreadable, err)
	}
	j.Secrets = ep.SigningSecrets(now)
	ev := kassa.Event{ID: d.EventID, Type: d.EventType, Created: fromMicros(evCreated)}
	if ev.Data, err = eventData(data, z); err != nil {
		return nil, "", fmt.Errorf("store: claim webhook deliveries: event %s: %w", d.EventID, err)
	}
	payload, err := ev.MarshalJSON()
	j.Payload = payload
	return &j, status, err
}

// FinishWebhookAttempt logs attempt a of a claimed job and applies
// delivery.Next in one transaction: the delivery's next attempt or end, the
// endpoint's failure record, and its disabling (with a webhook_endpoint.disabled
// event) after a 410 or five days of failures. A job whose lease was lost is a
// conflict and changes nothing.
func (db *DB) FinishWebhookAttempt(ctx context.Context, job *delivery.Job, a kassa.WebhookAttempt, res delivery.Result) error {
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
		// The endpoint is locked only when the attempt changes it (its failure record
		// or status), so successful deliveries to one endpoint do not queue on its row.
		now := db.clock()
		a.Attempt = attempts + 1
		ep, err := db.webhookEndpointByID(ctx, tx, job.Delivery.EndpointID, false)
		if err != nil {
			return err
		}
		plan := delivery.Next(a.Attempt, res, ep.FailingSince, now, delivery.Jitter)
		changes := plan.Disable != "" || !sameTime(ep.FailingSince, plan.FailingSince)
		if changes {
			if ep, err = db.webhookEndpointByID(ctx, tx, job.Delivery.EndpointID, true); err != nil {
				return err
			}
			plan = delivery.Next(a.Attempt, res, ep.FailingSince, now, delivery.Jitter)
			changes = plan.Disable != "" || !sameTime(ep.FailingSince, plan.FailingSince)
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO webhook_attempts (delivery_id, attempt, attempted_at, status_code,
			latency_ms, response_excerpt, error, succeeded) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
			job.Delivery.ID, a.Attempt, micros(a.At), nullIfZero(a.StatusCode), a.LatencyMS,
			strings.ToValidUTF8(strings.ReplaceAll(a.ResponseExcerpt, "\x00", ""), ""), nullIfEmpty(a.Error), a.Succeeded); err != nil {
			return fmt.Errorf("store: log webhook attempt: %w", err)
		}
		if _, err := tx.ExecContext(ctx, `UPDATE webhook_deliveries SET status = $1, attempts = $2, next_attempt_at = $3,
			lease = NULL, lease_until = NULL, updated_at = $4 WHERE id = $5`,
			plan.Status, a.Attempt, nullMicros(plan.NextAttemptAt), micros(now), job.Delivery.ID); err != nil {
			return fmt.Errorf("store: finish webhook attempt: %w", err)
		}
		if !changes {
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

// webhookEndpointByID reads an endpoint without its secrets through q, locked for
// update when lock is set.
func (db *DB) webhookEndpointByID(ctx context.Context, q queryer, id string, lock bool) (*kassa.WebhookEndpoint, error) {
	suffix := ""
	if lock {
		suffix = db.forUpdate()
	}
	ep, err := scanEndpoint(q.QueryRowContext(ctx, "SELECT "+endpointColumns+" FROM webhook_endpoints WHERE id = $1"+suffix, id), nil)
	if err != nil {
		return nil, fmt.Errorf("store: webhook endpoint %s: %w", id, err)
	}
	return ep, nil
}
