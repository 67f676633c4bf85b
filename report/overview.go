package report

import (
	"context"
	"time"

	"github.com/kassapay/kassa"
)

// DayTotal is one UTC day of a merchant's volume: the invoices paid that day and
// the refunds made that day (of invoices paid then or earlier).
type DayTotal struct {
	Day      time.Time    // midnight UTC
	Paid     int64        // invoices paid that day
	Gross    kassa.Millis // what they paid
	Refunds  int64        // refunds made that day
	Refunded kassa.Millis // what they give back
}

// Net is the day's volume net of refunds: what was paid that day less what was
// refunded that day. A refund counts on the day it is made, never on the day
// its invoice was paid, so a past day's figure does not change afterwards; a day
// with more refunded than paid is negative.
func (t DayTotal) Net() kassa.Millis { return t.Gross - t.Refunded }

// Failing counts a merchant's webhook deliveries that are not getting through.
type Failing struct {
	Retrying int64 // failed at least once and waiting for their next attempt
	Failed   int64 // gave up: retries exhausted, 410, or the endpoint disabled
}

// Total is every failing delivery, retrying or failed.
func (f Failing) Total() int64 { return f.Retrying + f.Failed }

// OverviewStats reads the figures of a merchant's dashboard overview. Every
// method is scoped to one merchant and one environment.
type OverviewStats interface {
	// VolumeByDay sums, per UTC day at or after since, oldest day first, the
	// invoices paid (by paid_at) and the refunds made (commerce orders' refunds,
	// by when the refund was made, of paid invoices); days with neither are
	// left out.
	VolumeByDay(ctx context.Context, merchantID int64, env kassa.Environment, since time.Time) ([]DayTotal, error)
	// FailingDeliveries counts the webhook deliveries retrying now and those
	// that failed (gave up) at or after since.
	FailingDeliveries(ctx context.Context, merchantID int64, env kassa.Environment, since time.Time) (Failing, error)
	// EventDeliveries lists the webhook deliveries of the given events (an
	// invoice's), newest first, at most limit, each with its attempts.
	EventDeliveries(ctx context.Context, p kassa.Principal, eventIDs []string, limit int) ([]*kassa.WebhookDelivery, error)
	// CountInvoices counts the invoices matching f (its cursor and limit aside):
	// with NeedsAttention, those a person should look at.
	CountInvoices(ctx context.Context, f kassa.InvoiceFilter) (int64, error)
}
