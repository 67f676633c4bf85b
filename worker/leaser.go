package worker

import (
	"context"
	"time"
)

// Leaser hands out named, expiring leases, so one instance of several does a job
// (watching a network) at a time.
type Leaser interface {
	// TryLease takes or renews the lease name for holder until now+ttl and
	// reports whether holder has it; another holder's unexpired lease wins.
	TryLease(ctx context.Context, name, holder string, ttl time.Duration) (bool, error)
	// ReleaseLease gives up holder's lease name, if it has it.
	ReleaseLease(ctx context.Context, name, holder string) error
}
