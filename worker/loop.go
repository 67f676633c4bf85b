// Package worker runs Kassa's background work. Loop is the one schedule every
// periodic worker follows (settlement, order placement, webhook delivery, the
// chain watchers and senders, the event stream's feed reads); Expiry, Prune and
// DescriptionIndex are the sweeps that belong to no other package. It imports only the standard library and the domain.
package worker

import (
	"context"
	"log/slog"
	"time"
)

// Round is one pass of a background job. more reports that work was left over
// (the round handled a full batch), so the next round should start at once; err
// reports a failed round.
type Round func(ctx context.Context) (more bool, err error)

// Loop is the schedule of a background job. Its zero Wake and Log are usable;
// Interval must be positive.
type Loop struct {
	// Name names the job in log lines ("settlement round").
	Name string
	// Interval is the pause after a round that left nothing over, or failed.
	Interval time.Duration
	// Wake, when not nil, ends a pause early: a signal that work may be waiting
	// (store.DB.Commits, or store.DB.Deliveries for the webhook worker). A signal
	// that comes during a round ends the pause after it.
	Wake <-chan struct{}
	// Settle, when positive, is how long a round woken by Wake waits first, so the
	// wake-ups of that time share one round: under a write load Wake signals for
	// nearly every commit, and a round per commit costs a query per commit.
	Settle time.Duration
	// Log reports failed rounds at level Warn; nil discards.
	Log *slog.Logger
	// Lease, when not nil, makes the job a singleton among instances: rounds run
	// only while this instance holds it (see Lease).
	Lease *Lease
}

// Run runs round until ctx ends: at once; again at once while round reports more
// work; otherwise after Interval or on Wake, whichever comes first. A failed round
// is logged, unless ctx has ended, and followed by a pause rather than retried at
// once. Run returns when ctx ends, after the round in progress, if any, returns
// (and the Lease, if any, is given up).
func (l Loop) Run(ctx context.Context, round Round) {
	if l.Interval <= 0 {
		panic("worker: Loop " + l.Name + " has no positive Interval")
	}
	if l.Lease != nil {
		round = l.Lease.guard(round)
		defer l.Lease.release()
	}
	log := l.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	var pause *time.Timer
	for {
		more, err := round(ctx)
		if ctx.Err() != nil {
			return
		}
		if err != nil {
			log.LogAttrs(ctx, slog.LevelWarn, l.Name+" failed", slog.String("err", err.Error()))
		} else if more {
			continue
		}
		if pause == nil {
			pause = time.NewTimer(l.Interval)
		} else {
			pause.Reset(l.Interval)
		}
		select {
		case <-ctx.Done():
			pause.Stop()
			return
		case <-l.Wake:
			pause.Stop()
			if l.Settle > 0 && !l.settle(ctx, pause) {
				return
			}
		case <-pause.C:
		}
	}
}

// settle waits Settle on pause (stopped by the caller), then takes a wake-up that
// came meanwhile, as the round about to start covers it; false when ctx ends first.
func (l Loop) settle(ctx context.Context, pause *time.Timer) bool {
	pause.Reset(l.Settle)
	select {
	case <-ctx.Done():
		pause.Stop()
		return false
	case <-pause.C:
	}
	select {
	case <-l.Wake:
	default:
	}
	return true
}
