package store_test

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/idempotency"
	"github.com/kassapay/kassa/invoicing"
	"github.com/kassapay/kassa/store"
	"github.com/kassapay/kassa/store/storetest"
)

func scope(f *fixture, key string) kassa.IdempotencyScope {
	return kassa.IdempotencyScope{MerchantID: f.m.ID, Environment: kassa.Devnet, Route: "POST /api/v1/invoices", Key: key}
}

// claim claims s and returns the record holding it (nil when the caller owns it).
func claim(t *testing.T, f *fixture, s kassa.IdempotencyScope, fp string) *idempotency.Record {
	t.Helper()
	rec, err := f.db.ClaimIdempotencyKey(f.ctx, s, fp)
	must(t, err)
	return rec
}

func TestIdempotencyClaimCompleteReplay(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		f := newFixture(t, cfg)
		s := scope(f, "k1")
		if rec := claim(t, f, s, "fp"); rec != nil {
			t.Fatalf("first claim got %+v, want ownership", rec)
		}
		rec := claim(t, f, s, "fp")
		if rec == nil || rec.Done || rec.Fingerprint != "fp" || idempotency.Resolve(rec, "fp") != idempotency.InUse {
			t.Fatalf("claim while running = %+v", rec)
		}
		body := []byte(`{"invoice_id":"x"}`)
		must(t, f.db.CompleteIdempotencyKey(f.ctx, s, 201, body))
		f.clock.Advance(time.Hour)
		rec = claim(t, f, s, "fp")
		if rec == nil || !rec.Done || rec.StatusCode != 201 || string(rec.Body) != string(body) ||
			!rec.CreatedAt.Equal(t0.Truncate(time.Microsecond)) || idempotency.Resolve(rec, "fp") != idempotency.Replay {
			t.Fatalf("replay record = %+v", rec)
		}
		if idempotency.Resolve(claim(t, f, s, "other"), "other") != idempotency.Reused {
			t.Fatal("different fingerprint is not reused")
		}
		// Scope parts are independent keys.
		for _, other := range []kassa.IdempotencyScope{
			{MerchantID: s.MerchantID, Environment: kassa.Mainnet, Route: s.Route, Key: s.Key},
			{MerchantID: s.MerchantID, Environment: s.Environment, Route: "POST /other", Key: s.Key},
			{MerchantID: f.merchant(t, "other@example.com").ID, Environment: s.Environment, Route: s.Route, Key: s.Key},
		} {
			if rec := claim(t, f, other, "fp"); rec != nil {
				t.Fatalf("claim of %+v got %+v, want ownership", other, rec)
			}
		}
		// A completed record is kept for the TTL, then taken over and pruned.
		f.clock.Advance(kassa.IdempotencyTTL - time.Hour)
		if rec := claim(t, f, s, "fp2"); rec != nil {
			t.Fatalf("claim after TTL got %+v, want ownership", rec)
		}
	})
}

func TestIdempotencyRelease(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		f := newFixture(t, cfg)
		s := scope(f, "k")
		claim(t, f, s, "bad body")
		must(t, f.db.ReleaseIdempotencyKey(f.ctx, s))
		if rec := claim(t, f, s, "fixed body"); rec != nil {
			t.Fatalf("claim after release got %+v", rec)
		}
		must(t, f.db.CompleteIdempotencyKey(f.ctx, s, 200, []byte("{}")))
		must(t, f.db.ReleaseIdempotencyKey(f.ctx, s)) // a completed record stays
		if rec := claim(t, f, s, "fixed body"); rec == nil || !rec.Done {
			t.Fatalf("completed record released: %+v", rec)
		}
	})
}

func TestIdempotencyStaleTakeover(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		f := newFixture(t, cfg)
		s := scope(f, "k")
		claim(t, f, s, "fp")
		f.clock.Advance(kassa.IdempotencyStale - time.Microsecond)
		if rec := claim(t, f, s, "fp"); rec == nil || rec.Done {
			t.Fatalf("running record taken over too early: %+v", rec)
		}
		f.clock.Advance(time.Microsecond)
		if rec := claim(t, f, s, "fp"); rec != nil {
			t.Fatalf("stale record not taken over: %+v", rec)
		}
		if rec := claim(t, f, s, "fp"); rec == nil || !rec.CreatedAt.Equal(f.clock.Now().Truncate(time.Microsecond)) {
			t.Fatalf("record after takeover = %+v", rec)
		}
	})
}

func TestIdempotencyPrune(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		f := newFixture(t, cfg)
		claim(t, f, scope(f, "old"), "fp")
		must(t, f.db.CompleteIdempotencyKey(f.ctx, scope(f, "old"), 201, []byte("x")))
		f.clock.Advance(time.Hour)
		claim(t, f, scope(f, "new"), "fp")
		must(t, f.db.CompleteIdempotencyKey(f.ctx, scope(f, "new"), 201, []byte("y")))
		f.clock.Advance(kassa.IdempotencyTTL - time.Hour)
		n, err := f.db.PruneIdempotencyKeys(f.ctx)
		must(t, err)
		if n != 1 {
			t.Fatalf("pruned %d, want 1", n)
		}
		if rec := claim(t, f, scope(f, "new"), "fp"); rec == nil || string(rec.Body) != "y" {
			t.Fatal("unexpired record was pruned")
		}
	})
}

// TestIdempotencyPruneWindows: the prune deletes every record past its 24 hours
// across several windows of the walk (SQLite walks by rowid), and keeps a young
// record inserted before them (a clock set back) and one after.
func TestIdempotencyPruneWindows(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		f := newFixture(t, cfg)
		young := t0.Add(10 * 24 * time.Hour)
		save := func(key string) error {
			return f.db.SaveIdempotentResponse(f.ctx, scope(f, key), "fp", 201, []byte(key))
		}
		f.clock.Set(young)
		must(t, save("ahead")) // first by rowid, young by its clock
		f.clock.Set(t0)
		const old = 4100 // two windows of 2,000 and part of a third
		var wg sync.WaitGroup
		for w := range 8 {
			wg.Go(func() {
				for i := range old / 8 {
					if err := save(fmt.Sprintf("old-%d-%d", w, i)); err != nil {
						t.Error(err)
						return
					}
				}
			})
		}
		wg.Wait()
		f.clock.Set(young)
		must(t, save("last"))
		f.clock.Set(t0.Add(kassa.IdempotencyTTL + time.Hour))
		n, err := f.db.PruneIdempotencyKeys(f.ctx)
		must(t, err)
		if n != old/8*8 {
			t.Fatalf("pruned %d records, want %d", n, old/8*8)
		}
		for _, key := range []string{"ahead", "last"} {
			if rec, err := f.db.IdempotencyRecord(f.ctx, scope(f, key)); err != nil || rec == nil || string(rec.Body) != key {
				t.Fatalf("record %s after the prune: %v, %v", key, rec, err)
			}
		}
		if n, err := f.db.PruneIdempotencyKeys(f.ctx); err != nil || n != 0 {
			t.Fatalf("second prune: %d, %v", n, err)
		}
	})
}

func TestIdempotencyConcurrentClaims(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		f := newFixture(t, cfg)
		for _, stale := range []bool{false, true} {
			s := scope(f, "fresh")
			if stale {
				s = scope(f, "stale")
				claim(t, f, s, "fp")
				f.clock.Advance(kassa.IdempotencyStale)
			}
			const n = 20
			var (
				wg     sync.WaitGroup
				mu     sync.Mutex
				owners int
			)
			start := make(chan struct{})
			for range n {
				wg.Add(1)
				go func() {
					defer wg.Done()
					<-start
					rec, err := f.db.ClaimIdempotencyKey(f.ctx, s, "fp")
					if err != nil {
						t.Errorf("claim: %v", err)
						return
					}
					if rec == nil {
						mu.Lock()
						owners++
						mu.Unlock()
					}
				}()
			}
			close(start)
			wg.Wait()
			if owners != 1 {
				t.Fatalf("stale=%v: %d owners of one key, want 1", stale, owners)
			}
		}
	})
}

// keyedCreate returns a create of an invoice for m, under idempotency key key
// (fingerprint "fp-"+key) when it is not "", for 1 USD, its response {"id": ...}: the creates
// the batch and pin tests hold, release and count.
func keyedCreate(f *fixture, m *kassa.Merchant, key string) func() (*kassa.Invoice, error) {
	return func() (*kassa.Invoice, error) {
		var save *kassa.SavedResponse[kassa.CreatedInvoice]
		if key != "" {
			s := kassa.IdempotencyScope{MerchantID: m.ID, Environment: kassa.Devnet, Route: "POST /api/v1/invoices", Key: key}
			save = &kassa.SavedResponse[kassa.CreatedInvoice]{Scope: s, Fingerprint: "fp-" + key,
				Render: func(c kassa.CreatedInvoice) (int, []byte, error) {
					return 201, []byte(`{"id":"` + c.Invoice.ID + `"}`), nil
				}}
		}
		inv, _, err := invoicing.Over(f.db).CreateInvoice(f.ctx, principal(m), kassa.InvoiceCreate{Amount: 1000}, save)
		return inv, err
	}
}
