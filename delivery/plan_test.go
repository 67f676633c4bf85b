package delivery

import (
	"testing"
	"time"

	"github.com/kassapay/kassa"
)

func TestResultSucceeded(t *testing.T) {
	tests := []struct {
		code int
		want bool
	}{
		{0, false}, {199, false}, {200, true}, {201, true}, {204, true}, {299, true},
		{300, false}, {301, false}, {404, false}, {410, false}, {500, false},
	}
	for _, tt := range tests {
		if got := (Result{StatusCode: tt.code}).Succeeded(); got != tt.want {
			t.Errorf("Succeeded(%d) = %v, want %v", tt.code, got, tt.want)
		}
	}
}

func TestNext(t *testing.T) {
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	hourAgo := now.Add(-time.Hour)
	almost := now.Add(-kassa.WebhookFailingLimit + time.Second)
	fiveDays := now.Add(-kassa.WebhookFailingLimit)
	at := func(d time.Duration) *time.Time { t := now.Add(d); return &t }
	tests := []struct {
		name    string
		attempt int
		res     Result
		failing *time.Time
		status  string
		next    *time.Time
		since   *time.Time
		disable string
	}{
		{name: "200 succeeds", attempt: 1, res: Result{StatusCode: 200}, status: kassa.DeliverySucceeded},
		{name: "204 after failures clears failing", attempt: 4, res: Result{StatusCode: 204}, failing: &hourAgo,
			status: kassa.DeliverySucceeded},
		{name: "2xx after five days of failures still succeeds", attempt: 9, res: Result{StatusCode: 299}, failing: &fiveDays,
			status: kassa.DeliverySucceeded},
		{name: "500 on the first attempt", attempt: 1, res: Result{StatusCode: 500},
			status: kassa.DeliveryPending, next: at(5 * time.Second), since: &now},
		{name: "no response on the first attempt", attempt: 1, res: Result{Error: "connection refused"},
			status: kassa.DeliveryPending, next: at(5 * time.Second), since: &now},
		{name: "second attempt waits 5 minutes", attempt: 2, res: Result{StatusCode: 502}, failing: &hourAgo,
			status: kassa.DeliveryPending, next: at(5 * time.Minute), since: &hourAgo},
		{name: "third attempt waits 30 minutes", attempt: 3, res: Result{StatusCode: 404}, failing: &hourAgo,
			status: kassa.DeliveryPending, next: at(30 * time.Minute), since: &hourAgo},
		{name: "ninth attempt waits 24 hours", attempt: 9, res: Result{StatusCode: 500}, failing: &hourAgo,
			status: kassa.DeliveryPending, next: at(24 * time.Hour), since: &hourAgo},
		{name: "tenth failure ends it", attempt: 10, res: Result{StatusCode: 500}, failing: &hourAgo,
			status: kassa.DeliveryFailed, since: &hourAgo},
		{name: "past the schedule ends it", attempt: 11, res: Result{StatusCode: 500}, failing: &hourAgo,
			status: kassa.DeliveryFailed, since: &hourAgo},
		{name: "attempt 0 is not retried", attempt: 0, res: Result{StatusCode: 500},
			status: kassa.DeliveryFailed, since: &now},
		{name: "410 disables", attempt: 1, res: Result{StatusCode: 410},
			status: kassa.DeliveryFailed, since: &now, disable: kassa.DisabledGone},
		{name: "410 keeps failing since", attempt: 3, res: Result{StatusCode: 410}, failing: &hourAgo,
			status: kassa.DeliveryFailed, since: &hourAgo, disable: kassa.DisabledGone},
		{name: "429 honours Retry-After", attempt: 1, res: Result{StatusCode: 429, RetryAfter: 90 * time.Second},
			status: kassa.DeliveryPending, next: at(90 * time.Second), since: &now},
		{name: "503 honours Retry-After", attempt: 5, res: Result{StatusCode: 503, RetryAfter: time.Minute}, failing: &hourAgo,
			status: kassa.DeliveryPending, next: at(time.Minute), since: &hourAgo},
		{name: "Retry-After capped at 24h", attempt: 1, res: Result{StatusCode: 503, RetryAfter: 72 * time.Hour},
			status: kassa.DeliveryPending, next: at(kassa.WebhookMaxRetryWait), since: &now},
		{name: "Retry-After ignored on 500", attempt: 1, res: Result{StatusCode: 500, RetryAfter: time.Hour},
			status: kassa.DeliveryPending, next: at(5 * time.Second), since: &now},
		{name: "429 without Retry-After follows the schedule", attempt: 2, res: Result{StatusCode: 429}, failing: &hourAgo,
			status: kassa.DeliveryPending, next: at(5 * time.Minute), since: &hourAgo},
		{name: "Retry-After does not extend the schedule", attempt: 10, res: Result{StatusCode: 429, RetryAfter: time.Second},
			failing: &hourAgo, status: kassa.DeliveryFailed, since: &hourAgo},
		{name: "failing just under five days", attempt: 2, res: Result{StatusCode: 500}, failing: &almost,
			status: kassa.DeliveryPending, next: at(5 * time.Minute), since: &almost},
		{name: "failing five days disables", attempt: 2, res: Result{StatusCode: 500}, failing: &fiveDays,
			status: kassa.DeliveryFailed, since: &fiveDays, disable: kassa.DisabledFailing},
		{name: "failing longer disables", attempt: 1, res: Result{StatusCode: 429, RetryAfter: time.Second}, failing: at(-30 * 24 * time.Hour),
			status: kassa.DeliveryFailed, since: at(-30 * 24 * time.Hour), disable: kassa.DisabledFailing},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := Next(tt.attempt, tt.res, tt.failing, now, nil)
			if p.Status != tt.status || p.Disable != tt.disable {
				t.Fatalf("plan = %s disable %q, want %s disable %q", p.Status, p.Disable, tt.status, tt.disable)
			}
			if !sameTimePtr(p.NextAttemptAt, tt.next) {
				t.Fatalf("next attempt %v, want %v", p.NextAttemptAt, tt.next)
			}
			if !sameTimePtr(p.FailingSince, tt.since) {
				t.Fatalf("failing since %v, want %v", p.FailingSince, tt.since)
			}
			if tt.failing != nil && p.FailingSince == tt.failing {
				t.Fatal("plan aliases the caller's failing-since time")
			}
		})
	}
}

func sameTimePtr(a, b *time.Time) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return a.Equal(*b)
}

func TestPlanSchedule(t *testing.T) {
	// The whole Standard Webhooks example schedule, one failure after another.
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	want := []time.Duration{5 * time.Second, 5 * time.Minute, 30 * time.Minute, 2 * time.Hour, 5 * time.Hour,
		10 * time.Hour, 14 * time.Hour, 20 * time.Hour, 24 * time.Hour}
	var (
		failing *time.Time
		at      = now
	)
	for attempt := 1; attempt <= len(want)+1; attempt++ {
		p := Next(attempt, Result{StatusCode: 500}, failing, at, nil)
		if attempt == len(want)+1 {
			if p.Status != kassa.DeliveryFailed || p.Disable != "" {
				t.Fatalf("attempt %d: %+v, want failed", attempt, p)
			}
			break
		}
		if p.Status != kassa.DeliveryPending || p.NextAttemptAt == nil || p.NextAttemptAt.Sub(at) != want[attempt-1] {
			t.Fatalf("attempt %d: %+v, want pending after %s", attempt, p, want[attempt-1])
		}
		if !p.FailingSince.Equal(now) {
			t.Fatalf("attempt %d: failing since %v, want %v", attempt, p.FailingSince, now)
		}
		failing, at = p.FailingSince, *p.NextAttemptAt
	}
	// The schedule adds up to under five days, so an endpoint that fails every
	// delivery is disabled only by later deliveries.
	var sum time.Duration
	for _, d := range Schedule {
		sum += d
	}
	if sum >= kassa.WebhookFailingLimit {
		t.Fatalf("schedule lasts %s", sum)
	}
}

func TestNextJitter(t *testing.T) {
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	var seen time.Duration
	jitter := func(d time.Duration) time.Duration { seen = d; return d + time.Second }
	p := Next(2, Result{StatusCode: 500}, nil, now, jitter)
	if seen != 5*time.Minute || !p.NextAttemptAt.Equal(now.Add(5*time.Minute+time.Second)) {
		t.Fatalf("jitter saw %s, next %v", seen, p.NextAttemptAt)
	}
	// Retry-After is the receiver's wish: not jittered.
	p = Next(2, Result{StatusCode: 429, RetryAfter: time.Minute}, nil, now, jitter)
	if !p.NextAttemptAt.Equal(now.Add(time.Minute)) {
		t.Fatalf("Retry-After jittered: next %v", p.NextAttemptAt)
	}
}

func TestJitter(t *testing.T) {
	for _, d := range append([]time.Duration{time.Nanosecond, 4 * time.Nanosecond, 10 * time.Nanosecond, time.Second}, Schedule...) {
		lo, hi := d-d/10, d+d/10
		var below, above bool
		for range 2000 {
			got := Jitter(d)
			if got < lo || got > hi {
				t.Fatalf("Jitter(%s) = %s, outside [%s, %s]", d, got, lo, hi)
			}
			below = below || got < d
			above = above || got > d
		}
		if d >= time.Second && (!below || !above) {
			t.Errorf("Jitter(%s) never went both ways (below %v, above %v)", d, below, above)
		}
	}
	if got := Jitter(0); got != 0 {
		t.Errorf("Jitter(0) = %s", got)
	}
}
