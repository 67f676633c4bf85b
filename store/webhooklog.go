package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"

	"github.com/kassapay/kassa"
)

const deliveryColumns = `id, endpoint_id, merchant_id, environment, event_id, event_type, status, attempts,
	next_attempt_at, created_at, updated_at`

func scanDelivery(s scanner) (*kassa.WebhookDelivery, error) {
	var (
		d                kassa.WebhookDelivery
		env              string
		next             sql.Null[int64]
		created, updated int64
	)
	if err := s.Scan(&d.ID, &d.EndpointID, &d.MerchantID, &env, &d.EventID, &d.EventType, &d.Status, &d.Attempts,
		&next, &created, &updated); err != nil {
		return nil, err
	}
	d.Environment, d.NextAttemptAt = kassa.Environment(env), timeOrNil(next)
	d.CreatedAt, d.UpdatedAt, d.Log = fromMicros(created), fromMicros(updated), []kassa.WebhookAttempt{}
	return &d, nil
}

// WebhookDeliveries lists one endpoint's deliveries, newest first, each with its
// attempts; cursors are delivery ids of that endpoint.
func (db *DB) WebhookDeliveries(ctx context.Context, p kassa.Principal, f kassa.DeliveryFilter) ([]*kassa.WebhookDelivery, bool, error) {
	if _, err := db.endpoint(ctx, db.r, p, f.EndpointID, false); err != nil {
		return nil, false, err
	}
	if f.StartingAfter != "" && f.EndingBefore != "" {
		return nil, false, kassa.Invalidf("ending_before", "invalid_cursor",
			"starting_after and ending_before cannot be used together.")
	}
	limit := min(max(f.Limit, 1), MaxListLimit)
	if f.Limit <= 0 {
		limit = DefaultListLimit
	}
	if !storable(f.EventID) || !storable(f.Status) {
		return []*kassa.WebhookDelivery{}, false, nil // matches nothing stored
	}
	w := &where{}
	w.add("endpoint_id = %s", f.EndpointID)
	if f.EventID != "" {
		w.add("event_id = %s", f.EventID)
	}
	if f.Status != "" {
		w.add("status = %s", f.Status)
	}
	order := " ORDER BY id DESC"
	cursor, param, backward := f.StartingAfter, "starting_after", false
	if f.EndingBefore != "" {
		cursor, param, backward = f.EndingBefore, "ending_before", true
	}
	if cursor != "" {
		// A cursor that cannot be stored matches nothing; checked before the query,
		// which PostgreSQL would fail on bytes that are not UTF-8.
		var n int
		if storable(cursor) {
			err := db.r.QueryRowContext(ctx, "SELECT COUNT(*) FROM webhook_deliveries WHERE id = $1 AND endpoint_id = $2",
				cursor, f.EndpointID).Scan(&n)
			if err != nil {
				return nil, false, fmt.Errorf("store: delivery cursor: %w", err)
			}
		}
		if n == 0 {
			return nil, false, kassa.Invalidf(param, "invalid_cursor", "%s is not a delivery id of this endpoint.", param)
		}
		if backward {
			w.add("id > %s", cursor)
			order = " ORDER BY id ASC"
		} else {
			w.add("id < %s", cursor)
		}
	}
	rows, err := db.r.QueryContext(ctx, "SELECT "+deliveryColumns+" FROM webhook_deliveries"+w.String()+order+
		" LIMIT "+strconv.Itoa(limit+1), w.args...)
	if err != nil {
		return nil, false, fmt.Errorf("store: webhook deliveries: %w", err)
	}
	out := []*kassa.WebhookDelivery{}
	for rows.Next() {
		d, err := scanDelivery(rows)
		if err != nil {
			rows.Close()
			return nil, false, fmt.Errorf("store: webhook deliveries: %w", err)
		}
		out = append(out, d)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, false, fmt.Errorf("store: webhook deliveries: %w", err)
	}
	out, more := trimPage(out, limit, backward)
	return out, more, db.attachAttempts(ctx, out)
}

// attachAttempts loads the attempts of the deliveries, oldest first.
func (db *DB) attachAttempts(ctx context.Context, ds []*kassa.WebhookDelivery) error {
	if len(ds) == 0 {
		return nil
	}
	byID := map[string]*kassa.WebhookDelivery{}
	w := &where{}
	ids := make([]string, len(ds))
	for i, d := range ds {
		byID[d.ID], ids[i] = d, d.ID
	}
	w.in("delivery_id", ids)
	rows, err := db.r.QueryContext(ctx, `SELECT delivery_id, attempt, attempted_at, status_code, latency_ms,
		response_excerpt, error, succeeded FROM webhook_attempts`+w.String()+" ORDER BY delivery_id, attempt", w.args...)
	if err != nil {
		return fmt.Errorf("store: webhook attempts: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var (
			id     string
			a      kassa.WebhookAttempt
			at     int64
			code   sql.Null[int64]
			errMsg sql.Null[string]
		)
		if err := rows.Scan(&id, &a.Attempt, &at, &code, &a.LatencyMS, &a.ResponseExcerpt, &errMsg, &a.Succeeded); err != nil {
			return fmt.Errorf("store: webhook attempts: %w", err)
		}
		a.At, a.StatusCode, a.Error = fromMicros(at), int(code.V), errMsg.V
		byID[id].Log = append(byID[id].Log, a)
	}
	return rows.Err()
}

// ResendEvent queues the event (of either scope: webhooks carry both) again: for endpointID, when decide, the
// endpoints service's rule, allows it on the endpoint read in the transaction, or for every enabled endpoint of the
// event's environment that wants its type (endpoints.Store).
func (db *DB) ResendEvent(ctx context.Context, p kassa.Principal, eventID, endpointID string,
	decide func(ep *kassa.WebhookEndpoint) error) ([]*kassa.WebhookDelivery, error) {
	e, err := db.anyEvent(ctx, p.MerchantID, p.Environment, eventID)
	if err != nil {
		return nil, err
	}
	out := []*kassa.WebhookDelivery{}
	err = db.tx(ctx, func(tx txq) error {
		out = out[:0]
		var targets []*kassa.WebhookEndpoint
		if endpointID != "" {
			ep, err := db.endpoint(ctx, tx, p, endpointID, false)
			if kassa.ErrorKindOf(err) == kassa.KindNotFound {
				return kassa.Invalidf("endpoint_id", "resource_missing", "No such webhook endpoint: %s.", endpointID)
			}
			if err != nil {
				return err
			}
			if err := decide(ep); err != nil {
				return err
			}
			targets = append(targets, ep)
		} else {
			eps, err := enabledEndpoints(ctx, tx, p.MerchantID, p.Environment)
			if err != nil {
				return err
			}
			for _, ep := range eps {
				if ep.Wants(e.Type) {
					targets = append(targets, ep)
				}
			}
		}
		now := db.clock()
		for _, ep := range targets {
			d, err := insertDelivery(ctx, tx, ep, e, now)
			if err != nil {
				return err
			}
			out = append(out, d)
		}
		return nil
	})
	if err != nil && !errors.As(err, new(*kassa.Error)) {
		return nil, fmt.Errorf("store: resend event: %w", err)
	}
	return out, err
}
