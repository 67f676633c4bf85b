package store_test

import (
	"testing"
	"time"

	"github.com/kassapay/kassa/delivery"
	"github.com/kassapay/kassa/store"
	"github.com/kassapay/kassa/store/storetest"
)

// TestWebhookBacklog: the queue's size and ages follow deliveries as they are
// queued, fail into a retry, come due again and succeed.
func TestWebhookBacklog(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		f := newFixture(t, cfg)
		backlog := func() store.WebhookBacklog {
			t.Helper()
			b, err := f.db.WebhookBacklog(f.ctx, f.clock.Now())
			must(t, err)
			return b
		}
		if b := backlog(); b != (store.WebhookBacklog{}) {
			t.Fatalf("empty queue: %+v", b)
		}
		f.endpoint(t, principal(f.m), "hook", "invoice.created")
		queued := f.clock.Now().Truncate(time.Microsecond)
		f.invoice(t, f.m, 1000, nil)
		f.clock.Advance(time.Second)
		f.invoice(t, f.m, 1000, nil)
		f.clock.Advance(10 * time.Second)
		b := backlog()
		if b.Pending != 2 || b.Due != 2 || !b.OldestPending.Equal(queued) || !b.OldestDue.Equal(queued) {
			t.Fatalf("two queued: %+v, want both due since %v", b, queued)
		}

		jobs := f.claim(t, time.Minute, 2)
		f.finish(t, jobs[0], delivery.Result{StatusCode: 500}) // retried later
		f.finish(t, jobs[1], delivery.Result{StatusCode: 200})
		b = backlog()
		if b.Pending != 1 || b.Due != 0 || !b.OldestDue.IsZero() || b.OldestPending.IsZero() {
			t.Fatalf("one waiting for its retry: %+v", b)
		}
		f.clock.Advance(24 * time.Hour)
		if b = backlog(); b.Pending != 1 || b.Due != 1 || b.OldestDue.IsZero() || !b.OldestDue.Before(f.clock.Now()) {
			t.Fatalf("the retry is due: %+v", b)
		}
	})
}
