package webhook

import (
	"strings"
	"time"

	"github.com/kassapay/kassa"
)

// Metrics is where the worker reports its attempts (package metrics implements it).
type Metrics interface {
	// WebhookAttempt is one attempt: its Outcome and how long its request took
	// (zero when none was sent).
	WebhookAttempt(outcome string, took time.Duration)
}

// Outcomes of an attempt: a 2xx answer, another answer by class, no answer within
// the webhook timeout, or no answer at all (refused, DNS, TLS, a blocked address, a
// secret that does not sign).
const (
	OutcomeSuccess   = "success"
	OutcomeHTTP4xx   = "http_4xx"
	OutcomeHTTP5xx   = "http_5xx"
	OutcomeHTTPOther = "http_other"
	OutcomeTimeout   = "timeout"
	OutcomeError     = "error"
)

// Outcome classifies an attempt for the metrics: a few fixed values, never the
// endpoint or the error text.
func Outcome(a kassa.WebhookAttempt) string {
	switch {
	case a.Succeeded:
		return OutcomeSuccess
	case a.StatusCode >= 400 && a.StatusCode < 500:
		return OutcomeHTTP4xx
	case a.StatusCode >= 500 && a.StatusCode < 600:
		return OutcomeHTTP5xx
	case a.StatusCode != 0:
		return OutcomeHTTPOther
	case strings.HasPrefix(a.Error, "timeout"): // describe's wording of a timeout
		return OutcomeTimeout
	}
	return OutcomeError
}
