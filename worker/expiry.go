package worker

import (
	"context"
	"log/slog"
	"time"
)

// ExpiryInterval is how often Expiry looks for invoices whose expiry has passed.
const ExpiryInterval = 5 * time.Second

// expiryBatch is how many invoices one expiry round handles at most.
const expiryBatch = 500

// InvoiceExpirer stores the expiry of due invoices (store.DB does).
type InvoiceExpirer interface {
	// ExpireInvoices expires at most limit due invoices and returns how many it
	// expired.
	ExpireInvoices(ctx context.Context, limit int) (int, error)
}

// Expiry stores the expiry of due invoices until ctx ends: at once, then every
// ExpiryInterval, in batches of 500 taken one after another while they come back
// full. Events and lists so see expiry even when nobody reads the invoice.
func Expiry(ctx context.Context, invoices InvoiceExpirer, log *slog.Logger) {
	Loop{Name: "invoice expiry", Interval: ExpiryInterval, Log: log}.Run(ctx, expiryRound(invoices))
}

// expiryRound expires one batch; there is more when the batch was full.
func expiryRound(invoices InvoiceExpirer) Round {
	return func(ctx context.Context) (bool, error) {
		n, err := invoices.ExpireInvoices(ctx, expiryBatch)
		return n >= expiryBatch, err
	}
}
