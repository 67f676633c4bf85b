package kassa

import (
	"math/rand/v2"
	"time"
)

// Webhook delivery statuses.
const (
	DeliveryPending   = "pending"   // waiting for its next attempt
	DeliverySucceeded = "succeeded" // a 2xx answered
	DeliveryFailed    = "failed"    // retries exhausted, 410, or the endpoint was disabled
)

// WebhookSchedule is the wait after each failed attempt (Standard Webhooks' example):
// the first attempt is at once, then 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h
// and 24 h later; after the tenth failure the delivery is failed.
var WebhookSchedule = []time.Duration{
	5 * time.Second, 5 * time.Minute, 30 * time.Minute, 2 * time.Hour, 5 * time.Hour,
	10 * time.Hour, 14 * time.Hour, 20 * time.Hour, 24 * time.Hour,
}

// Webhook timing rules.
const (
	WebhookTimeout      = 15 * time.Second   // a 2xx must arrive within this
	WebhookDialTimeout  = 10 * time.Second   // connecting, TLS included
	WebhookFailingLimit = 5 * 24 * time.Hour // an endpoint failing this long is disabled
	WebhookSecretGrace  = 24 * time.Hour     // a rotated-out secret keeps signing this long
	WebhookMaxRetryWait = 24 * time.Hour     // Retry-After is honoured up to this
	WebhookExcerptBytes = 1024               // response body kept in the delivery log
)

// WebhookBodyNotKept stands in the delivery log for the response body of an
// endpoint that is not at a public address (loopback or a private network, which
// the operator allows): the log, which the merchant reads, keeps only its status.
const WebhookBodyNotKept = "(response body not kept: the endpoint is not at a public address)"

// WebhookDelivery is one event queued for one endpoint, with its attempts.
type WebhookDelivery struct {
	ID            string // "whd_" + random
	EndpointID    string
	MerchantID    int64
	Environment   Environment
	EventID       string
	EventType     string
	Status        string
	Attempts      int
	NextAttemptAt *time.Time // nil once finished
	CreatedAt     time.Time
	UpdatedAt     time.Time
	Log           []WebhookAttempt // oldest first
}

// WebhookAttempt is one HTTP request of a delivery, as the delivery log shows it.
type WebhookAttempt struct {
	Attempt         int // 1 for the first
	At              time.Time
	StatusCode      int // 0 when no response came
	LatencyMS       int64
	ResponseExcerpt string // first WebhookExcerptBytes of the body; WebhookBodyNotKept from a non-public address
	Error           string // transport error, "" when a response came
	Succeeded       bool
}

// WebhookJob is a claimed delivery with what the sender needs: where to post, how
// to sign and what.
type WebhookJob struct {
	Delivery WebhookDelivery
	URL      string
	Secrets  []string // SigningSecrets at claim time
	Payload  []byte   // the event as the API shows it
	Lease    string   // claim token; only its holder can finish the job
}

// WebhookResult is what one attempt got back.
type WebhookResult struct {
	StatusCode int           // 0: no response (Error says why)
	RetryAfter time.Duration // from a Retry-After header on 429 or 503; 0 when absent
	Error      string
}

// Succeeded reports whether the attempt ends the delivery successfully.
func (r WebhookResult) Succeeded() bool { return r.StatusCode >= 200 && r.StatusCode < 300 }

// WebhookPlan is what follows an attempt.
type WebhookPlan struct {
	Status        string     // DeliverySucceeded, DeliveryPending or DeliveryFailed
	NextAttemptAt *time.Time // when pending
	// FailingSince is the endpoint's new failing_since: nil after a success.
	FailingSince *time.Time
	// Disable, when not "", disables the endpoint with this reason (and writes a
	// webhook_endpoint.disabled event).
	Disable string
}

// PlanWebhook decides what follows attempt number attempt (1 for the first) of a
// delivery whose endpoint has been failing since failingSince (nil: it was not),
// given its result at now. jitter spreads retries by up to ±10 % of the wait; nil
// means none. Pure, so the store and tests share it.
func PlanWebhook(attempt int, res WebhookResult, failingSince *time.Time, now time.Time, jitter func(time.Duration) time.Duration) WebhookPlan {
	if res.Succeeded() {
		return WebhookPlan{Status: DeliverySucceeded}
	}
	since := now
	if failingSince != nil {
		since = *failingSince
	}
	p := WebhookPlan{Status: DeliveryFailed, FailingSince: &since}
	switch {
	case res.StatusCode == 410:
		p.Disable = DisabledGone
		return p
	case now.Sub(since) >= WebhookFailingLimit:
		p.Disable = DisabledFailing
		return p
	case attempt > len(WebhookSchedule) || attempt < 1:
		return p
	}
	wait := WebhookSchedule[attempt-1]
	if jitter != nil {
		wait = jitter(wait)
	}
	if res.RetryAfter > 0 && (res.StatusCode == 429 || res.StatusCode == 503) {
		wait = min(res.RetryAfter, WebhookMaxRetryWait)
	}
	next := now.Add(wait)
	p.Status, p.NextAttemptAt = DeliveryPending, &next
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
