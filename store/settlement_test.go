package store_test

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/store"
	"github.com/kassapay/kassa/store/storetest"
)

// TestClaimSettlementsConcurrent: two workers claiming at once never get the same
// receipt, and together they get every due one.
func TestClaimSettlementsConcurrent(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		f := newFixture(t, cfg)
		const n = 20
		for i := range n {
			f.pay(t, f.invoice(t, f.m, 1000, nil), fmt.Sprintf("0x%064d", i), 1000, true)
		}
		var (
			wg   sync.WaitGroup
			mu   sync.Mutex
			seen = map[string]int{}
		)
		for range 2 {
			wg.Go(func() {
				for {
					jobs, err := f.db.ClaimSettlements(f.ctx, 3, time.Minute)
					if err != nil {
						t.Error(err)
						return
					}
					if len(jobs) == 0 {
						return
					}
					mu.Lock()
					for _, j := range jobs {
						seen[j.ReceiptID]++
					}
					mu.Unlock()
				}
			})
		}
		wg.Wait()
		if len(seen) != n {
			t.Fatalf("claimed %d receipts, want %d", len(seen), n)
		}
		// A claim whose worker died is taken again after the lease.
		if jobs, err := f.db.ClaimSettlements(f.ctx, 100, time.Minute); err != nil || len(jobs) != 0 {
			t.Fatalf("claimed %d (%v) within the lease, want 0", len(jobs), err)
		}
		f.clock.Advance(time.Minute)
		if jobs, err := f.db.ClaimSettlements(f.ctx, 100, time.Minute); err != nil || len(jobs) != n {
			t.Fatalf("claimed %d (%v) after the lease, want %d", len(jobs), err, n)
		}
		for id, c := range seen {
			if c != 1 {
				t.Fatalf("receipt %s claimed %d times", id, c)
			}
			must(t, f.db.FinishSettlement(f.ctx, id, kassa.SettlementSettled, "0xabc", ""))
		}
		err := f.db.FinishSettlement(f.ctx, func() string {
			for id := range seen {
				return id
			}
			return ""
		}(), kassa.SettlementSettled, "", "")
		wantErr(t, err, kassa.KindConflict, "settlement_not_processing")
	})
}
