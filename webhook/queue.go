package webhook

import (
	"context"
	"time"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/delivery"
)

// Queue is the durable delivery queue the webhook workers drain.
type Queue interface {
	// ClaimWebhookJobs leases up to limit due deliveries of enabled endpoints for
	// lease. Several workers and instances never hold the same delivery at once; a
	// lease that runs out (its worker died) makes the delivery due again.
	ClaimWebhookJobs(ctx context.Context, limit int, lease time.Duration) ([]*delivery.Job, error)
	// FinishWebhookAttempt logs the attempt and applies its plan (delivery.Next) in one
	// transaction. A job whose lease was lost is refused with a conflict error.
	FinishWebhookAttempt(ctx context.Context, job *delivery.Job, a kassa.WebhookAttempt, res delivery.Result) error
}
