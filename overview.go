package kassa

import (
	"context"
	"time"
)

// DayTotal is the invoices paid on one UTC day and their USD volume.
type DayTotal struct {
	Day    time.Time // midnight UTC
	Paid   int64
	Volume Millis
}

// OverviewStats reads the figures of a merchant's dashboard overview. Every
// method is scoped to one merchant and one environment.
type OverviewStats interface {
	// PaidByDay sums the invoices paid at or after since, per UTC day of their
	// paid_at, oldest day first; days without a paid invoice are left out.
	PaidByDay(ctx context.Context, merchantID int64, env Environment, since time.Time) ([]DayTotal, error)
	// FailedDeliveries counts the webhook deliveries that failed (gave up) at or
	// after since.
	FailedDeliveries(ctx context.Context, merchantID int64, env Environment, since time.Time) (int64, error)
	// EventDeliveries lists the webhook deliveries of the given events (an
	// invoice's), newest first, at most limit, each with its attempts.
	EventDeliveries(ctx context.Context, p Principal, eventIDs []string, limit int) ([]*WebhookDelivery, error)
	// CountInvoices counts the invoices matching f (its cursor and limit aside):
	// with NeedsAttention, those a person should look at.
	CountInvoices(ctx context.Context, f InvoiceFilter) (int64, error)
}
