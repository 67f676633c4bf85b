package kassa

import (
	"time"
)

// Webhook delivery statuses.
const (
	DeliveryPending   = "pending"   // waiting for its next attempt
	DeliverySucceeded = "succeeded" // a 2xx answered
	DeliveryFailed    = "failed"    // retries exhausted, 410, or the endpoint was disabled
)

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
