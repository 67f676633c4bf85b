package delivery

import (
	"math/rand/v2"
	"time"

	"github.com/kassapay/kassa"
)

// Schedule is the wait after each failed attempt (Standard Webhooks' example):
// the first attempt is at once, then 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h
// and 24 h later; after the tenth failure the delivery is failed.
var Schedule = []time.Duration{
	5 * time.Second, 5 * time.Minute, 30 * time.Minute, 2 * time.Hour, 5 * time.Hour,
	10 * time.Hour, 14 * time.Hour, 20 * time.Hour, 24 * time.Hour,
}

// Job is a claimed delivery with what the sender needs: where to post, how
// to sign and what.
type Job struct {
	Delivery kassa.WebhookDelivery
	URL      string
	Secrets  []string // kassa.WebhookEndpoint.SigningSecrets at claim time
	Payload  []byte   // the event as the API shows it
	Lease    string   // claim token; only its holder can finish the job
}

// Result is what one attempt got back.
type Result struct {
	StatusCode int           // 0: no response (Error says why)
	RetryAfter time.Duration // from a Retry-After header on 429 or 503; 0 when absent
	Error      string
}

// Succeeded reports whether the attempt ends the delivery successfully.
func (r Result) Succeeded() bool { return r.StatusCode >= 200 && r.StatusCode < 300 }

// Plan is what follows an attempt.
type Plan struct {
	Status        string     // kassa.DeliverySucceeded, DeliveryPending or DeliveryFailed
	NextAttemptAt *time.Time // when pending
	// FailingSince is the endpoint's new failing_since: nil after a success.
	FailingSince *time.Time
	// Disable, when not "", disables the endpoint with this reason (and writes a
	// webhook_endpoint.disabled event).
	Disable string
}

// Next decides what follows attempt number attempt (1 for the first) of a
// delivery whose endpoint has been failing since failingSince (nil: it was not),
// given its result at now. jitter spreads retries by up to ±10 % of the wait; nil
// means none. Pure, so the store and tests share it.
func Next(attempt int, res Result, failingSince *time.Time, now time.Time, jitter func(time.Duration) time.Duration) Plan {
	if res.Succeeded() {
		return Plan{Status: kassa.DeliverySucceeded}
	}
	since := now
	if failingSince != nil {
		since = *failingSince
	}
	p := Plan{Status: kassa.DeliveryFailed, FailingSince: &since}
	switch {
	case res.StatusCode == 410:
		p.Disable = kassa.DisabledGone
		return p
	case now.Sub(since) >= kassa.WebhookFailingLimit:
		p.Disable = kassa.DisabledFailing
		return p
	case attempt > len(Schedule) || attempt < 1:
		return p
	}
	wait := Schedule[attempt-1]
	if jitter != nil {
		wait = jitter(wait)
	}
	if res.RetryAfter > 0 && (res.StatusCode == 429 || res.StatusCode == 503) {
		wait = min(res.RetryAfter, kassa.WebhookMaxRetryWait)
	}
	next := now.Add(wait)
	p.Status, p.NextAttemptAt = kassa.DeliveryPending, &next
	return p
}

// Jitter returns d changed by a random amount of up to ±10 %.
func Jitter(d time.Duration) time.Duration {
	span := int64(d / 5)
	if span <= 0 {
		return d
	}
	return d - time.Duration(span/2) + time.Duration(rand.Int64N(span+1))
}
