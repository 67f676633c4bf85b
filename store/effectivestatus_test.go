package store_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/store"
	"github.com/kassapay/kassa/store/storetest"
)

// TestEffectiveStatusSQLIsTheGoRule checks the store's SQL translation of
// kassa.Invoice.EffectiveStatus (effectiveStatusSQL, which lists, filters and
// totals use) against the Go rule, on every stored status, an expiry just before,
// at and just after now, and with and without money pending.
func TestEffectiveStatusSQLIsTheGoRule(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		f := newFixture(t, cfg)
		now := f.clock.Now().Truncate(time.Microsecond)
		want := map[string]kassa.InvoiceStatus{}
		cases := map[string]string{}
		for _, status := range kassa.InvoiceStatuses {
			for _, expiry := range []time.Duration{-time.Microsecond, 0, time.Microsecond} {
				for _, pending := range []kassa.Millis{0, 100} {
					inv := f.invoice(t, f.m, 1000, nil)
					store.ExecForTest(t, f.db, "UPDATE invoices SET status = $1, expires_at = $2, amount_pending = $3 WHERE id = $4",
						string(status), now.Add(expiry).UnixMicro(), int64(pending), inv.ID)
					rule := kassa.Invoice{Status: status, ExpiresAt: now.Add(expiry), AmountPending: pending}
					want[inv.ID] = rule.EffectiveStatus(now)
					cases[inv.ID] = fmt.Sprintf("%s, expiry %v from now, %d pending", status, expiry, pending)
				}
			}
		}
		got := store.EffectiveStatuses(t, f.db, f.m.ID, now)
		if len(got) != len(want) {
			t.Fatalf("%d invoices read, want %d", len(got), len(want))
		}
		for id, w := range want {
			if got[id] != w {
				t.Errorf("%s: the SQL says %s, kassa.Invoice.EffectiveStatus %s", cases[id], got[id], w)
			}
		}
	})
}
