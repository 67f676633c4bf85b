package webhook

import (
	"testing"

	"github.com/kassapay/kassa"
)

func TestOutcome(t *testing.T) {
	tests := []struct {
		a    kassa.WebhookAttempt
		want string
	}{
		{kassa.WebhookAttempt{StatusCode: 200, Succeeded: true}, OutcomeSuccess},
		{kassa.WebhookAttempt{StatusCode: 204, Succeeded: true}, OutcomeSuccess},
		{kassa.WebhookAttempt{StatusCode: 400}, OutcomeHTTP4xx},
		{kassa.WebhookAttempt{StatusCode: 429}, OutcomeHTTP4xx},
		{kassa.WebhookAttempt{StatusCode: 503}, OutcomeHTTP5xx},
		{kassa.WebhookAttempt{StatusCode: 302}, OutcomeHTTPOther},
		{kassa.WebhookAttempt{Error: "timeout: no response within 15s"}, OutcomeTimeout},
		{kassa.WebhookAttempt{Error: "dial tcp: connection refused"}, OutcomeError},
		{kassa.WebhookAttempt{}, OutcomeError},
	}
	for _, tt := range tests {
		if got := Outcome(tt.a); got != tt.want {
			t.Errorf("Outcome(%+v) = %q, want %q", tt.a, got, tt.want)
		}
	}
}
