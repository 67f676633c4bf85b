// Package settlement passes received money on to merchants: a worker claims
// confirmed receipts, decides their route and hands them to an executor, one
// receipt at a time, so one failure never blocks the others.
package settlement

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"log/slog"
	"time"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/worker"
)

// batchSize is how many receipts one round claims.
const batchSize = 100

// DefaultLease is how long a round's claim on its receipts lasts when
// Worker.Lease is zero. A receipt claimed by an instance that then died (claimed,
// not yet settled or put into a sweep) is claimed again by another once it has
// run out, so it bounds how late a crash makes a settlement; a round needs
// milliseconds a receipt.
const DefaultLease = time.Minute

// Worker settles receipts.
type Worker struct {
	Store    kassa.SettlementService
	Registry kassa.Registry
	// Executors settle per environment; an environment without one settles manually.
	Executors map[kassa.Environment]kassa.SettlementExecutor
	// OnChain reports whether a network is watched: its receipts settle by a sweep
	// on chain (Payouts.QueueSweep, sent by chain.Sender), not by an executor.
	OnChain func(env kassa.Environment, network string) bool
	Payouts kassa.PayoutStore
	// Refunds completes devnet's refunds on unwatched networks; nil: none.
	Refunds RefundSimulator
	Log     *slog.Logger
	// Lease is how long a claim lasts, DefaultLease when 0. A round hands out no
	// receipt once half of it has passed and gives up on the one in hand at three
	// quarters (its context's deadline): those left are claimed again when it runs
	// out, so two workers never hold one receipt at once.
	Lease time.Duration
	// Now is the clock, time.Now when nil.
	Now func() time.Time
}

// RunOnce claims due receipts and settles each: manual without a route or
// destination, settled or failed by the executor. It returns how many it handled.
func (w *Worker) RunOnce(ctx context.Context) (int, error) {
	lease := cmp.Or(w.Lease, DefaultLease)
	start := w.now() // read before the claim, so the times below fall within its lease
	handOut := start.Add(lease / 2)
	ctx, cancel := context.WithTimeout(ctx, lease*3/4) // a hung executor or store gives up first
	defer cancel()
	jobs, err := w.Store.ClaimSettlements(ctx, batchSize, lease)
	if err != nil {
		return 0, err
	}
	var errs []error
	for i, job := range jobs {
		if w.now().After(handOut) {
			w.Log.Warn("settlement round too slow: the rest of its receipts wait for their claim to run out",
				"left", len(jobs)-i, "lease", lease)
			return i, errors.Join(errs...)
		}
		if w.OnChain != nil && w.OnChain(job.Environment, job.Network) {
			if err := w.sweep(ctx, job); err != nil {
				errs = append(errs, err)
			}
			continue
		}
		status, hash, reason := w.settle(ctx, job)
		if err := w.Store.FinishSettlement(ctx, job.ReceiptID, status, hash, reason); err != nil {
			errs = append(errs, err) // the other jobs still finish
		}
	}
	if err := w.simulateRefunds(ctx); err != nil {
		errs = append(errs, err)
	}
	return len(jobs), errors.Join(errs...)
}

func (w *Worker) now() time.Time {
	if w.Now != nil {
		return w.Now()
	}
	return time.Now()
}

func (w *Worker) settle(ctx context.Context, job kassa.SettlementJob) (kassa.SettlementStatus, string, string) {
	tok, known := w.Registry.Token(job.Environment, job.TokenID)
	if kassa.SettlementRoute(tok, known, job) == kassa.SettlementManual {
		return kassa.SettlementManual, "", "no settlement route or destination for this token"
	}
	exec := w.Executors[job.Environment]
	if exec == nil {
		return kassa.SettlementManual, "", "no settlement executor for " + string(job.Environment)
	}
	hash, err := exec.Settle(ctx, job)
	if err != nil {
		w.Log.Warn("settlement failed", "receipt", job.ReceiptID, "err", err)
		return kassa.SettlementFailed, "", err.Error()
	}
	return kassa.SettlementSettled, hash, ""
}

// sweep queues a receipt of a watched network for a sweep to the merchant on the
// same network; a destination on another network (or none) is manual.
func (w *Worker) sweep(ctx context.Context, job kassa.SettlementJob) error {
	tok, known := w.Registry.Token(job.Environment, job.TokenID)
	reason := ""
	switch {
	case kassa.SettlementRoute(tok, known, job) == kassa.SettlementManual:
		reason = "no settlement route or destination for this token"
	case job.TargetNetwork != "" && job.TargetNetwork != job.Network:
		reason = "the settlement address is on " + job.TargetNetwork + ", not on " + job.Network + ": settle it by hand"
	case job.DepositAddress == "":
		reason = "the receipt has no deposit address to sweep"
	}
	if reason != "" {
		return w.Store.FinishSettlement(ctx, job.ReceiptID, kassa.SettlementManual, "", reason)
	}
	_, err := w.Payouts.QueueSweep(ctx, job)
	return err
}

// Run settles due receipts until ctx ends: at once, then every interval, claiming
// batch after batch while they come back full (worker.Loop).
func (w *Worker) Run(ctx context.Context, interval time.Duration) {
	worker.Loop{Name: "settlement round", Interval: interval, Log: w.Log}.Run(ctx, func(ctx context.Context) (bool, error) {
		n, err := w.RunOnce(ctx)
		return n >= batchSize, err
	})
}

// Devnet settles by itself: there is no chain to send on, so the transaction hash
// is derived from the receipt.
type Devnet struct{}

// Settle returns a deterministic stand-in transaction hash.
func (Devnet) Settle(_ context.Context, job kassa.SettlementJob) (string, error) {
	h := sha256.Sum256([]byte("kassa devnet settlement " + job.ReceiptID))
	return "0x" + hex.EncodeToString(h[:]), nil
}
