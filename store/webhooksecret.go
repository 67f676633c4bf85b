package store

import (
	"context"
	"fmt"

	"github.com/kassapay/kassa"
)

// openEndpointSecret opens a secret of endpoint id for a caller that shows or
// signs with it.
func (db *DB) openEndpointSecret(value, column, id string) (string, error) {
	return db.open(value, "webhook_endpoints", column, id)
}

// RotateWebhookSecret gives the endpoint a new secret; the current one keeps signing
// deliveries, beside the new one, for kassa.WebhookSecretGrace.
func (db *DB) RotateWebhookSecret(ctx context.Context, p kassa.Principal, id string) (*kassa.WebhookEndpoint, error) {
	var out *kassa.WebhookEndpoint
	err := db.tx(ctx, func(tx txq) error {
		e, err := db.endpoint(ctx, tx, p, id, true)
		if err != nil {
			return err
		}
		now := db.clock()
		until := now.Add(kassa.WebhookSecretGrace)
		e.PreviousSecret, e.PreviousSecretUntil, e.Secret, e.UpdatedAt = e.Secret, &until, kassa.NewWebhookSecret(), now
		secret, err := db.seal(e.Secret, "webhook_endpoints", "secret", e.ID)
		if err != nil {
			return fmt.Errorf("store: rotate webhook secret: %w", err)
		}
		prev, err := db.seal(e.PreviousSecret, "webhook_endpoints", "previous_secret", e.ID)
		if err != nil {
			return fmt.Errorf("store: rotate webhook secret: %w", err)
		}
		_, err = tx.ExecContext(ctx, `UPDATE webhook_endpoints SET secret = $1, previous_secret = $2,
			previous_secret_until = $3, updated_at = $4 WHERE id = $5`,
			secret, prev, micros(until), micros(now), e.ID)
		if err != nil {
			return fmt.Errorf("store: rotate webhook secret: %w", err)
		}
		out = e
		return nil
	})
	return out, err
}
