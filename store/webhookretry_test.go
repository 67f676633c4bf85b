package store_test

import (
	"testing"
	"time"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/delivery"
	"github.com/kassapay/kassa/store"
	"github.com/kassapay/kassa/store/storetest"
)

func TestWebhookRetrySchedule(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		f := newFixture(t, cfg)
		p := principal(f.m)
		ep := f.endpoint(t, p, "hook", "*")
		f.invoice(t, f.m, 1000, nil)
		start := f.clock.Now().Truncate(time.Microsecond)

		steps := []struct {
			res  delivery.Result
			wait time.Duration // the schedule's wait before the next attempt
		}{
			{delivery.Result{StatusCode: 500}, 5 * time.Second},
			{delivery.Result{Error: "dial tcp: connection refused"}, 5 * time.Minute},
			{delivery.Result{StatusCode: 404}, 30 * time.Minute},
		}
		for i, s := range steps {
			jobs := f.claim(t, time.Minute, 1)
			if jobs[0].Delivery.Attempts != i {
				t.Fatalf("attempt %d: job says %d attempts made", i+1, jobs[0].Delivery.Attempts)
			}
			f.finish(t, jobs[0], s.res)
			now := f.clock.Now().Truncate(time.Microsecond)
			d := f.delivery(t, p, ep.ID)
			lo, hi := now.Add(s.wait-s.wait/10), now.Add(s.wait+s.wait/10)
			if d.Status != kassa.DeliveryPending || d.Attempts != i+1 || d.NextAttemptAt == nil ||
				d.NextAttemptAt.Before(lo) || d.NextAttemptAt.After(hi) || len(d.Log) != i+1 {
				t.Fatalf("after attempt %d: %s, want next attempt in [%s, %s]", i+1, jsonOf(t, d), lo, hi)
			}
			got := d.Log[i]
			if got.Attempt != i+1 || got.StatusCode != s.res.StatusCode || got.Error != s.res.Error || got.Succeeded || got.LatencyMS != 42 {
				t.Fatalf("attempt %d logged as %+v", i+1, got)
			}
			if ep := f.getEndpoint(t, p, ep.ID); ep.FailingSince == nil || !ep.FailingSince.Equal(start) || ep.Status != kassa.EndpointEnabled {
				t.Fatalf("endpoint failing since %v, want %v (the first failure)", ep.FailingSince, start)
			}
			// Not due before its time, due after it.
			f.clock.Set(lo.Add(-time.Microsecond))
			f.claim(t, time.Minute, 0)
			f.clock.Set(hi)
		}
		// 429 with Retry-After waits as asked.
		jobs := f.claim(t, time.Minute, 1)
		f.finish(t, jobs[0], delivery.Result{StatusCode: 429, RetryAfter: 3 * time.Hour})
		d := f.delivery(t, p, ep.ID)
		if want := f.clock.Now().Truncate(time.Microsecond).Add(3 * time.Hour); d.NextAttemptAt == nil || !d.NextAttemptAt.Equal(want) {
			t.Fatalf("next attempt after Retry-After %v, want %v", d.NextAttemptAt, want)
		}
		f.clock.Advance(3 * time.Hour)
		jobs = f.claim(t, time.Minute, 1)
		f.finish(t, jobs[0], delivery.Result{StatusCode: 200})
		d = f.delivery(t, p, ep.ID)
		if d.Status != kassa.DeliverySucceeded || d.Attempts != 5 || len(d.Log) != 5 || !d.Log[4].Succeeded {
			t.Fatalf("delivery %s", jsonOf(t, d))
		}
		if ep := f.getEndpoint(t, p, ep.ID); ep.FailingSince != nil {
			t.Fatalf("failing since %v after a success", ep.FailingSince)
		}
	})
}

func TestWebhookRetriesEnd(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		f := newFixture(t, cfg)
		p := principal(f.m)
		ep := f.endpoint(t, p, "hook", "*")
		f.invoice(t, f.m, 1000, nil)
		// A success elsewhere each day keeps the endpoint from being disabled.
		for attempt := 1; attempt <= len(delivery.Schedule)+1; attempt++ {
			jobs := f.claim(t, time.Minute, 1)
			f.finish(t, jobs[0], delivery.Result{StatusCode: 503})
			f.clock.Advance(time.Second) // delivery ids sort by creation only across milliseconds
			f.invoice(t, f.m, 1000, nil)
			ok := f.claim(t, time.Minute, 1)[0]
			f.finish(t, ok, delivery.Result{StatusCode: 200})
			f.clock.Advance(27 * time.Hour) // past the longest wait, 24 h, and its jitter
		}
		ds := f.deliveries(t, p, ep.ID)
		first := ds[len(ds)-1]
		if first.Status != kassa.DeliveryFailed || first.Attempts != 10 || first.NextAttemptAt != nil || len(first.Log) != 10 {
			t.Fatalf("first delivery after ten failures: %s", jsonOf(t, first))
		}
		if got := f.getEndpoint(t, p, ep.ID); got.Status != kassa.EndpointEnabled {
			t.Fatalf("endpoint %+v", got)
		}
		f.claim(t, time.Minute, 0)
	})
}
