package kassa

import "encoding/json"

// webhookEndpointJSON is the API shape of an endpoint. The secret appears only in
// the responses of create and rotate-secret (WithSecret).
type webhookEndpointJSON struct {
	ID             string   `json:"id"`
	Object         string   `json:"object"`
	URL            string   `json:"url"`
	Description    string   `json:"description"`
	EnabledEvents  []string `json:"enabled_events"`
	Status         string   `json:"status"`
	DisabledReason *string  `json:"disabled_reason"`
	Environment    string   `json:"environment"`
	Secret         string   `json:"secret,omitempty"`
	CreatedAt      string   `json:"created_at"`
	UpdatedAt      string   `json:"updated_at"`
}

func (e *WebhookEndpoint) json(secret string) webhookEndpointJSON {
	return webhookEndpointJSON{
		ID: e.ID, Object: "webhook_endpoint", URL: e.URL, Description: e.Description,
		EnabledEvents: e.EnabledEvents, Status: e.Status, DisabledReason: e.DisabledReason,
		Environment: string(e.Environment), Secret: secret,
		CreatedAt: FormatTime(e.CreatedAt), UpdatedAt: FormatTime(e.UpdatedAt),
	}
}

// MarshalJSON renders the endpoint without its secret: lists, retrieves and events.
func (e WebhookEndpoint) MarshalJSON() ([]byte, error) { return MarshalJSON(e.json("")) }

// WithSecret is the endpoint as create and rotate-secret render it: with its
// current secret.
func (e *WebhookEndpoint) WithSecret() json.Marshaler { return secretShown{e} }

// secretShown renders an endpoint WithSecret.
type secretShown struct{ *WebhookEndpoint }

// MarshalJSON renders the endpoint with its current secret.
func (s secretShown) MarshalJSON() ([]byte, error) { return MarshalJSON(s.json(s.Secret)) }

type webhookAttemptJSON struct {
	Attempt         int     `json:"attempt"`
	CreatedAt       string  `json:"created_at"`
	Status          string  `json:"status"`
	ResponseStatus  *int    `json:"response_status"`
	LatencyMS       int64   `json:"latency_ms"`
	ResponseExcerpt string  `json:"response_body_excerpt"`
	Error           *string `json:"error"`
}

// MarshalJSON renders a delivery with its attempts, oldest first.
func (d WebhookDelivery) MarshalJSON() ([]byte, error) {
	attempts := make([]webhookAttemptJSON, len(d.Log))
	for i, a := range d.Log {
		j := webhookAttemptJSON{Attempt: a.Attempt, CreatedAt: FormatTime(a.At), Status: DeliveryFailed,
			LatencyMS: a.LatencyMS, ResponseExcerpt: a.ResponseExcerpt}
		if a.Succeeded {
			j.Status = DeliverySucceeded
		}
		if a.StatusCode != 0 {
			code := a.StatusCode
			j.ResponseStatus = &code
		}
		if a.Error != "" {
			msg := a.Error
			j.Error = &msg
		}
		attempts[i] = j
	}
	return MarshalJSON(struct {
		ID            string               `json:"id"`
		Object        string               `json:"object"`
		EndpointID    string               `json:"endpoint_id"`
		EventID       string               `json:"event_id"`
		EventType     string               `json:"event_type"`
		Status        string               `json:"status"`
		AttemptCount  int                  `json:"attempt_count"`
		NextAttemptAt *string              `json:"next_attempt_at"`
		CreatedAt     string               `json:"created_at"`
		UpdatedAt     string               `json:"updated_at"`
		Attempts      []webhookAttemptJSON `json:"attempts"`
	}{d.ID, "webhook_delivery", d.EndpointID, d.EventID, d.EventType, d.Status, d.Attempts,
		FormatOptTime(d.NextAttemptAt), FormatTime(d.CreatedAt), FormatTime(d.UpdatedAt), attempts})
}
