package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/endpoints"
)

var _ endpoints.Store = (*DB)(nil)

const endpointColumns = `id, merchant_id, environment, url, description, enabled_events, status, disabled_reason,
	secret, previous_secret, previous_secret_until, failing_since, created_at, updated_at`

// enabledEndpointsSQL reads a merchant environment's endpoints of a status
// ($1, $2, $3: kassa.EndpointEnabled for those that get deliveries).
const enabledEndpointsSQL = "SELECT " + endpointColumns +
	" FROM webhook_endpoints WHERE merchant_id = $1 AND environment = $2 AND status = $3"

// scanEndpoint reads an endpoint row. open opens its secrets; nil leaves them
// out (""), for readers that do not sign.
func scanEndpoint(s scanner, open func(value, column, id string) (string, error)) (*kassa.WebhookEndpoint, error) {
	var (
		e                  kassa.WebhookEndpoint
		env, events        string
		reason, prev       sql.Null[string]
		prevUntil, failing sql.Null[int64]
		created, updated   int64
	)
	if err := s.Scan(&e.ID, &e.MerchantID, &env, &e.URL, &e.Description, &events, &e.Status, &reason,
		&e.Secret, &prev, &prevUntil, &failing, &created, &updated); err != nil {
		return nil, err
	}
	if err := json.Unmarshal([]byte(events), &e.EnabledEvents); err != nil {
		return nil, fmt.Errorf("store: endpoint %s: enabled_events: %w", e.ID, err)
	}
	e.Environment, e.DisabledReason, e.PreviousSecret = kassa.Environment(env), stringOrNil(reason), prev.V
	if open == nil {
		e.Secret, e.PreviousSecret = "", ""
	} else {
		var err error
		if e.Secret, err = open(e.Secret, "secret", e.ID); err != nil {
			return nil, err
		}
		if e.PreviousSecret, err = open(e.PreviousSecret, "previous_secret", e.ID); err != nil {
			return nil, err
		}
	}
	e.PreviousSecretUntil, e.FailingSince = timeOrNil(prevUntil), timeOrNil(failing)
	e.CreatedAt, e.UpdatedAt = fromMicros(created), fromMicros(updated)
	return &e, nil
}

// enabledEndpoints returns the merchant's enabled endpoints in env, without their
// secrets, read through q (the transaction that writes events, so deliveries are
// queued with them).
func enabledEndpoints(ctx context.Context, q queryer, merchantID int64, env kassa.Environment) ([]*kassa.WebhookEndpoint, error) {
	var cache *endpointCache // the SQLite writer's, when q is its transaction
	if t, ok := q.(txq); ok {
		cache = t.p.endpoints
	}
	if eps, ok := cache.get(merchantID, env); ok {
		return eps, nil
	}
	rows, err := q.QueryContext(ctx, enabledEndpointsSQL, merchantID, string(env), kassa.EndpointEnabled)
	if err != nil {
		return nil, fmt.Errorf("store: webhook endpoints: %w", err)
	}
	defer rows.Close()
	var out []*kassa.WebhookEndpoint
	for rows.Next() {
		e, err := scanEndpoint(rows, nil)
		if err != nil {
			return nil, fmt.Errorf("store: webhook endpoints: %w", err)
		}
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	cache.put(merchantID, env, out)
	return out, nil
}

// CreateWebhookEndpoint stores a new enabled endpoint of in, checked by the
// endpoints service, in the principal's environment with a fresh signing secret
// when decide, the service's rule, allows the count of the merchant's endpoints
// in that environment, made with the merchant locked (endpoints.Store).
func (db *DB) CreateWebhookEndpoint(ctx context.Context, p kassa.Principal, in kassa.WebhookEndpointInput,
	decide func(endpoints int) error) (*kassa.WebhookEndpoint, error) {
	now := db.clock()
	e := &kassa.WebhookEndpoint{
		ID: "we_" + strings.ReplaceAll(kassa.NewTimeUUID(now), "-", ""), MerchantID: p.MerchantID,
		Environment: p.Environment, URL: *in.URL, EnabledEvents: in.EnabledEvents, Status: kassa.EndpointEnabled,
		Secret: kassa.NewWebhookSecret(), CreatedAt: now, UpdatedAt: now,
	}
	if in.Description != nil {
		e.Description = *in.Description
	}
	events, _ := json.Marshal(e.EnabledEvents)
	secret, err := db.seal(e.Secret, "webhook_endpoints", "secret", e.ID)
	if err != nil {
		return nil, fmt.Errorf("store: create webhook endpoint: %w", err)
	}
	err = db.tx(ctx, func(tx txq) error {
		// The merchant row, locked, serializes concurrent creates so the count below
		// cannot be passed (as CreateAPIKey does).
		var id int64
		err := tx.QueryRowContext(ctx, "SELECT id FROM merchants WHERE id = $1"+db.forUpdate(), p.MerchantID).Scan(&id)
		if errors.Is(err, sql.ErrNoRows) {
			return kassa.NotFound("merchant")
		}
		if err != nil {
			return err
		}
		var n int
		if err := tx.QueryRowContext(ctx, "SELECT COUNT(*) FROM webhook_endpoints WHERE merchant_id = $1 AND environment = $2",
			p.MerchantID, string(p.Environment)).Scan(&n); err != nil {
			return err
		}
		if err := decide(n); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO webhook_endpoints (id, merchant_id, environment, url, description,
			enabled_events, status, secret, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $9)`,
			e.ID, e.MerchantID, string(e.Environment), e.URL, e.Description, string(events), e.Status, secret, micros(now))
		return err
	})
	if err != nil {
		if errors.As(err, new(*kassa.Error)) {
			return nil, err
		}
		return nil, fmt.Errorf("store: create webhook endpoint: %w", err)
	}
	return e, nil
}

// WebhookEndpoints lists the merchant's endpoints in the principal's environment,
// newest first.
func (db *DB) WebhookEndpoints(ctx context.Context, p kassa.Principal) ([]*kassa.WebhookEndpoint, error) {
	rows, err := db.r.QueryContext(ctx, "SELECT "+endpointColumns+
		" FROM webhook_endpoints WHERE merchant_id = $1 AND environment = $2 ORDER BY id DESC",
		p.MerchantID, string(p.Environment))
	if err != nil {
		return nil, fmt.Errorf("store: webhook endpoints: %w", err)
	}
	defer rows.Close()
	out := []*kassa.WebhookEndpoint{}
	for rows.Next() {
		e, err := scanEndpoint(rows, db.openEndpointSecret)
		if err != nil {
			return nil, fmt.Errorf("store: webhook endpoints: %w", err)
		}
		out = append(out, e)
	}
	return out, rows.Err()
}

// endpoint reads one of the principal's endpoints through q, locked for update when
// lock is set.
func (db *DB) endpoint(ctx context.Context, q queryer, p kassa.Principal, id string, lock bool) (*kassa.WebhookEndpoint, error) {
	if !storable(id) {
		return nil, kassa.NotFound("webhook endpoint")
	}
	suffix := ""
	if lock {
		suffix = db.forUpdate()
	}
	e, err := scanEndpoint(q.QueryRowContext(ctx, "SELECT "+endpointColumns+
		" FROM webhook_endpoints WHERE id = $1 AND merchant_id = $2 AND environment = $3"+suffix,
		id, p.MerchantID, string(p.Environment)), db.openEndpointSecret)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, kassa.NotFound("webhook endpoint")
	}
	if err != nil {
		return nil, fmt.Errorf("store: webhook endpoint: %w", err)
	}
	return e, nil
}

// WebhookEndpoint returns one of the merchant's endpoints in the principal's
// environment.
func (db *DB) WebhookEndpoint(ctx context.Context, p kassa.Principal, id string) (*kassa.WebhookEndpoint, error) {
	return db.endpoint(ctx, db.r, p, id, false)
}

// UpdateWebhookEndpoint changes the given fields, checked by the endpoints
// service. Disabling stops its pending deliveries (failed); enabling clears the
// failure record.
func (db *DB) UpdateWebhookEndpoint(ctx context.Context, p kassa.Principal, id string, in kassa.WebhookEndpointInput) (*kassa.WebhookEndpoint, error) {
	var out *kassa.WebhookEndpoint
	err := db.tx(ctx, func(tx txq) error {
		e, err := db.endpoint(ctx, tx, p, id, true)
		if err != nil {
			return err
		}
		now := db.clock()
		if in.URL != nil {
			e.URL = *in.URL
		}
		if in.Description != nil {
			e.Description = *in.Description
		}
		if in.EnabledEvents != nil {
			e.EnabledEvents = in.EnabledEvents
		}
		if in.Disabled != nil {
			switch {
			case *in.Disabled && e.Status == kassa.EndpointEnabled:
				if err := disableEndpoint(ctx, tx, e, kassa.DisabledByMerchant, now); err != nil {
					return err
				}
			case !*in.Disabled && e.Status == kassa.EndpointDisabled:
				e.Status, e.DisabledReason, e.FailingSince = kassa.EndpointEnabled, nil, nil
			}
		}
		e.UpdatedAt = now
		events, _ := json.Marshal(e.EnabledEvents)
		_, err = tx.ExecContext(ctx, `UPDATE webhook_endpoints SET url = $1, description = $2, enabled_events = $3,
			status = $4, disabled_reason = $5, failing_since = $6, updated_at = $7 WHERE id = $8`,
			e.URL, e.Description, string(events), e.Status, nullString(e.DisabledReason), nullMicros(e.FailingSince),
			micros(now), e.ID)
		if err != nil {
			return fmt.Errorf("store: update webhook endpoint: %w", err)
		}
		out = e
		return nil
	})
	return out, err
}

// disableEndpoint marks e disabled for reason and fails its pending deliveries,
// through tx. The caller stores e's other fields.
func disableEndpoint(ctx context.Context, tx queryer, e *kassa.WebhookEndpoint, reason string, now time.Time) error {
	e.Status, e.DisabledReason = kassa.EndpointDisabled, &reason
	_, err := tx.ExecContext(ctx, `UPDATE webhook_deliveries SET status = $1, next_attempt_at = NULL, lease = NULL,
		lease_until = NULL, updated_at = $2 WHERE endpoint_id = $3 AND status = $4`,
		kassa.DeliveryFailed, micros(now), e.ID, kassa.DeliveryPending)
	if err != nil {
		return fmt.Errorf("store: disable webhook endpoint: %w", err)
	}
	return nil
}

// DeleteWebhookEndpoint deletes the endpoint with its deliveries and their log.
func (db *DB) DeleteWebhookEndpoint(ctx context.Context, p kassa.Principal, id string) error {
	if !storable(id) {
		return kassa.NotFound("webhook endpoint")
	}
	var n int64
	err := db.tx(ctx, func(tx txq) error {
		res, err := tx.ExecContext(ctx, "DELETE FROM webhook_endpoints WHERE id = $1 AND merchant_id = $2 AND environment = $3",
			id, p.MerchantID, string(p.Environment))
		if err != nil {
			return fmt.Errorf("store: delete webhook endpoint: %w", err)
		}
		n, err = res.RowsAffected()
		return err
	})
	if err == nil && n == 0 {
		return kassa.NotFound("webhook endpoint")
	}
	return err
}
