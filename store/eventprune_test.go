package store_test

import (
	"sync"
	"testing"
	"time"

	"kassa"
	"kassa/store"
	"kassa/store/storetest"
)

// TestPruneEventsWindows prunes more events than one window holds, behind an
// event whose clock ran ahead (a low seq, a recent created_at): every old event
// goes, the young ones stay, and a second run finds nothing.
func TestPruneEventsWindows(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		f := newFixture(t, cfg)
		young := t0.Add(10 * 24 * time.Hour)
		f.clock.Set(young)
		ahead := f.invoice(t, f.m, 1000, nil) // first by seq, young by its clock
		f.clock.Set(t0)
		const old = 4100 // two windows of 2,000 and part of a third
		var wg sync.WaitGroup
		for w := range 8 {
			wg.Go(func() {
				for range old / 8 {
					if _, _, err := f.db.CreateInvoice(f.ctx, principal(f.m), kassa.InvoiceCreate{Amount: 1000}, nil); err != nil {
						t.Error(w, err)
						return
					}
				}
			})
		}
		wg.Wait()
		made := old / 8 * 8
		f.clock.Set(young)
		last := f.invoice(t, f.m, 1000, nil)

		n, err := f.db.PruneEvents(f.ctx, t0.Add(24*time.Hour))
		must(t, err)
		if n != int64(made) {
			t.Fatalf("pruned %d events, want %d", n, made)
		}
		es := f.merchantEvents(t, f.m)
		if len(es) != 2 || !containsObject(t, es, ahead.ID) || !containsObject(t, es, last.ID) {
			t.Fatalf("events left: %s", jsonOf(t, es))
		}
		if n, err := f.db.PruneEvents(f.ctx, t0.Add(24*time.Hour)); err != nil || n != 0 {
			t.Fatalf("second prune: %d, %v", n, err)
		}
	})
}
