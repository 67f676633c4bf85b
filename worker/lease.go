package worker

import (
	"context"
	"time"

	"github.com/kassapay/kassa"
)

// Lease makes a job a singleton among instances sharing one store: a Loop with a
// Lease runs a round only while its holder has the named lease (kassa.Leaser,
// store.DB), taking or renewing it before each round, and gives it up when it
// stops so another instance takes over at its next round. A holder that dies
// keeps the lease until TTL has passed; TTL must exceed the Loop's Interval, or
// the lease lapses between the holder's rounds.
type Lease struct {
	Leaser kassa.Leaser
	Name   string        // the job's lease, the same in every instance ("invoice-expiry")
	Holder string        // this instance, unique among instances
	TTL    time.Duration // how long a taken or renewed lease lasts
}

// Lease names of the singleton jobs serve runs.
const (
	ExpiryLease = "invoice-expiry"
	PruneLease  = "prune"
)

// guard returns round run under the lease: a round of an instance that does not
// hold it does nothing.
func (l *Lease) guard(round Round) Round {
	return func(ctx context.Context) (bool, error) {
		ok, err := l.Leaser.TryLease(ctx, l.Name, l.Holder, l.TTL)
		if err != nil || !ok {
			return false, err
		}
		return round(ctx)
	}
}

// release gives the lease up, if held, even though the loop's ctx has ended.
func (l *Lease) release() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = l.Leaser.ReleaseLease(ctx, l.Name, l.Holder)
}
