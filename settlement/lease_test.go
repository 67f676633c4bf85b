package settlement_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/registry"
	"github.com/kassapay/kassa/settlement"
	"github.com/kassapay/kassa/store"
	"github.com/kassapay/kassa/store/storetest"
)

// stalling settles by itself (settlement.Devnet) and counts each receipt it is
// handed; its first settlement takes stall on the shared clock.
type stalling struct {
	clock *storetest.Clock
	stall time.Duration
	seen  map[string]int
}

func (s *stalling) Settle(ctx context.Context, job kassa.SettlementJob) (string, error) {
	if len(s.seen) == 0 {
		s.clock.Advance(s.stall)
	}
	s.seen[job.ReceiptID]++
	return settlement.Devnet{}.Settle(ctx, job)
}

// TestWorkerLeavesReceiptsPastHalfTheLease: a round whose first settlement takes
// past half its lease hands out no more receipts; they stay processing, no other
// worker takes them while the claim holds, and one does once it has run out (as
// after a crash of the claiming instance). Each receipt is settled once.
func TestWorkerLeavesReceiptsPastHalfTheLease(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		const lease = time.Minute
		ctx := context.Background()
		clock := storetest.NewClock(time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC))
		cfg.Now = clock.Now
		s := newShop(t, cfg)
		receipts := []*kassa.InvoicePayment{s.pay(t, 1, true), s.pay(t, 1, true), s.pay(t, 1, true)}
		exec := &stalling{clock: clock, stall: lease/2 + time.Second, seen: map[string]int{}}
		first, second := s.worker(clock, lease, exec), s.worker(clock, lease, exec)

		if n, err := first.RunOnce(ctx); err != nil || n != 1 {
			t.Fatalf("the stalled round handled %d (%v), want 1", n, err)
		}
		processing := 0
		for _, r := range receipts {
			if s.settlementOf(t, r.ID) == kassa.SettlementProcessing {
				processing++
			}
		}
		if processing != 2 {
			t.Fatalf("%d receipts processing after the stalled round, want 2", processing)
		}
		if n, err := second.RunOnce(ctx); err != nil || n != 0 {
			t.Fatalf("another worker handled %d (%v) while the claim holds, want 0", n, err)
		}
		clock.Advance(lease)
		if n, err := second.RunOnce(ctx); err != nil || n != 2 {
			t.Fatalf("another worker handled %d (%v) once the claim ran out, want 2", n, err)
		}
		for _, r := range receipts {
			if st := s.settlementOf(t, r.ID); st != kassa.SettlementSettled || exec.seen[r.ID] != 1 {
				t.Errorf("receipt %s: %s, settled %d times; want settled once", r.ID, st, exec.seen[r.ID])
			}
		}
	})
}

// worker is a settlement worker of the shop's store on clock with lease, settling
// devnet through exec.
func (s *shop) worker(clock *storetest.Clock, lease time.Duration, exec kassa.SettlementExecutor) *settlement.Worker {
	return &settlement.Worker{Store: s.db, Registry: registry.Default(), Lease: lease, Now: clock.Now,
		Log:       slog.New(slog.NewTextHandler(io.Discard, nil)),
		Executors: map[kassa.Environment]kassa.SettlementExecutor{kassa.Devnet: exec}}
}

// hanging never answers: it waits for its context to end.
type hanging struct{}

func (hanging) Settle(ctx context.Context, _ kassa.SettlementJob) (string, error) {
	<-ctx.Done()
	return "", ctx.Err()
}

// TestWorkerGivesUpAHungSettlement: an executor that never answers is given up at
// three quarters of the lease; the receipt is not marked failed but stays
// processing, and is settled by another worker once the claim has run out.
func TestWorkerGivesUpAHungSettlement(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		const lease = 400 * time.Millisecond // on the real clock too: the round's deadline
		ctx := context.Background()
		clock := storetest.NewClock(time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC))
		cfg.Now = clock.Now
		s := newShop(t, cfg)
		r := s.pay(t, 1, true)
		if _, err := s.worker(clock, lease, hanging{}).RunOnce(ctx); !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("the hung round ended with %v, want its deadline", err)
		}
		if st := s.settlementOf(t, r.ID); st != kassa.SettlementProcessing {
			t.Fatalf("after the hung round the receipt is %s, want processing", st)
		}
		clock.Advance(lease)
		exec := &stalling{clock: clock, seen: map[string]int{}}
		if n, err := s.worker(clock, lease, exec).RunOnce(ctx); err != nil || n != 1 {
			t.Fatalf("another worker handled %d (%v) once the claim ran out, want 1", n, err)
		}
		if st := s.settlementOf(t, r.ID); st != kassa.SettlementSettled || exec.seen[r.ID] != 1 {
			t.Fatalf("receipt %s: %s, settled %d times; want settled once", r.ID, st, exec.seen[r.ID])
		}
	})
}
