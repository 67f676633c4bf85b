// The sweeps: jobs of serve that belong to no other package.

package worker

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/kassapay/kassa"
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

// Expiry stores the expiry of due invoices until ctx ends, so events and lists see
// it even when nobody reads the invoice: at once, then every ExpiryInterval, in
// batches of 500 taken one after another while they come back full. With a lease
// (Name ExpiryLease; nil: none) only its holder among instances sweeps.
func Expiry(ctx context.Context, invoices InvoiceExpirer, lease *Lease, log *slog.Logger) {
	Loop{Name: "invoice expiry", Interval: ExpiryInterval, Log: log, Lease: lease}.Run(ctx, expiryRound(invoices))
}

// expiryRound expires one batch; there is more when the batch was full.
func expiryRound(invoices InvoiceExpirer) Round {
	return func(ctx context.Context) (bool, error) {
		n, err := invoices.ExpireInvoices(ctx, expiryBatch)
		return n >= expiryBatch, err
	}
}

// PruneInterval is how often Prune deletes data past its retention.
const PruneInterval = time.Hour

// Pruner deletes data past its retention (store.DB does). Each method returns how
// many rows it deleted.
type Pruner interface {
	// PruneIdempotencyKeys deletes idempotency records past kassa.IdempotencyTTL.
	PruneIdempotencyKeys(ctx context.Context) (int64, error)
	// PruneEvents deletes events, with their webhook deliveries, created before
	// before.
	PruneEvents(ctx context.Context, before time.Time) (int64, error)
	// PruneCheckout deletes checkout estimates and addresses made before before.
	PruneCheckout(ctx context.Context, before time.Time) (int64, error)
	// PruneRateLimits deletes shared rate budgets that have refilled.
	PruneRateLimits(ctx context.Context) (int64, error)
	// PruneSignInFailures deletes the sign-in failures of accounts that are no
	// longer held and have not failed for kassa.SignInForget.
	PruneSignInFailures(ctx context.Context) (int64, error)
}

// Prune deletes expired idempotency keys, events (with their webhook deliveries)
// older than kassa.EventRetention, and checkout estimates and addresses older than
// checkoutRetention, refilled rate budgets and forgotten sign-in failures, until ctx ends: at once, then every
// PruneInterval. With a lease (Name PruneLease; nil: none) only its holder among
// instances prunes.
func Prune(ctx context.Context, store Pruner, checkoutRetention time.Duration, lease *Lease, log *slog.Logger) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	Loop{Name: "prune", Interval: PruneInterval, Log: log, Lease: lease}.Run(ctx, func(ctx context.Context) (bool, error) {
		return false, pruneOnce(ctx, store, time.Now(), checkoutRetention, log)
	})
}

// pruneOnce runs each deletion as of now, whether or not the ones before it
// failed, logs what was deleted and returns the failures.
func pruneOnce(ctx context.Context, store Pruner, now time.Time, checkoutRetention time.Duration, log *slog.Logger) error {
	steps := []struct {
		what string
		run  func() (int64, error)
	}{
		{"idempotency keys", func() (int64, error) { return store.PruneIdempotencyKeys(ctx) }},
		{"events", func() (int64, error) { return store.PruneEvents(ctx, now.Add(-kassa.EventRetention)) }},
		{"checkout estimates and addresses", func() (int64, error) {
			return store.PruneCheckout(ctx, now.Add(-checkoutRetention))
		}},
		{"rate limits", func() (int64, error) { return store.PruneRateLimits(ctx) }},
		{"sign-in failures", func() (int64, error) { return store.PruneSignInFailures(ctx) }},
	}
	var errs []error
	for _, s := range steps {
		n, err := s.run()
		if err != nil {
			errs = append(errs, fmt.Errorf("prune %s: %w", s.what, err))
		} else if n > 0 {
			log.LogAttrs(ctx, slog.LevelInfo, "pruned "+s.what, slog.Int64("count", n))
		}
	}
	return errors.Join(errs...)
}

// DescriptionIndexInterval is how often DescriptionIndex looks for invoices its
// index does not hold yet.
const DescriptionIndexInterval = time.Second

// descriptionBatch is how many invoices one round indexes at most: about 11 µs
// each (docs/performance.md, "The store at size"), so a round holds SQLite's
// writer for a few milliseconds.
const descriptionBatch = 500

// DescriptionIndexer indexes invoices' descriptions for search (store.DB does).
type DescriptionIndexer interface {
	// IndexDescriptions indexes at most limit invoices not indexed yet and
	// returns how many it passed.
	IndexDescriptions(ctx context.Context, limit int) (int, error)
}

// DescriptionIndex fills SQLite's description index off the create path until
// ctx ends: at once, then every DescriptionIndexInterval, in batches taken one
// after another while they come back full. A search scans what it has not reached
// yet, so the answers do not wait for it.
func DescriptionIndex(ctx context.Context, idx DescriptionIndexer, log *slog.Logger) {
	Loop{Name: "description index", Interval: DescriptionIndexInterval, Log: log}.Run(ctx, descriptionRound(idx))
}

// descriptionRound indexes one batch; there is more when the batch was full.
func descriptionRound(idx DescriptionIndexer) Round {
	return func(ctx context.Context) (bool, error) {
		n, err := idx.IndexDescriptions(ctx, descriptionBatch)
		return n >= descriptionBatch, err
	}
}
