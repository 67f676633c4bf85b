package kassa

import (
	"strings"
	"testing"
	"time"
)

func TestWebhookDeliveryJSON(t *testing.T) {
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	next := now.Add(5 * time.Minute)
	d := WebhookDelivery{ID: "whd_1", EndpointID: "we_1", EventID: "evt_1", EventType: EventInvoicePaid,
		Status: DeliveryPending, Attempts: 2, NextAttemptAt: &next, CreatedAt: now, UpdatedAt: now,
		Log: []WebhookAttempt{
			{Attempt: 1, At: now, Error: "dial tcp: connection refused"},
			{Attempt: 2, At: now.Add(5 * time.Second), StatusCode: 500, LatencyMS: 12, ResponseExcerpt: "<oops>"},
		}}
	b, err := MarshalJSON(d) // as the API renders it, without HTML escaping
	if err != nil {
		t.Fatal(err)
	}
	m := fields(t, b)
	wantMember(t, m, "object", `"webhook_delivery"`)
	wantMember(t, m, "endpoint_id", `"we_1"`)
	wantMember(t, m, "event_type", `"invoice.paid"`)
	wantMember(t, m, "status", `"pending"`)
	wantMember(t, m, "attempt_count", "2")
	wantMember(t, m, "next_attempt_at", `"`+FormatTime(next)+`"`)
	wantMember(t, m, "attempts", `[{"attempt":1,"created_at":"`+FormatTime(now)+`","status":"failed","response_status":null,`+
		`"latency_ms":0,"response_body_excerpt":"","error":"dial tcp: connection refused"},`+
		`{"attempt":2,"created_at":"`+FormatTime(now.Add(5*time.Second))+`","status":"failed","response_status":500,`+
		`"latency_ms":12,"response_body_excerpt":"<oops>","error":null}]`)

	d.Status, d.NextAttemptAt, d.Log = DeliverySucceeded, nil, []WebhookAttempt{{Attempt: 1, At: now, StatusCode: 200, Succeeded: true}}
	s := string(mustMarshal(t, d))
	if !strings.Contains(s, `"next_attempt_at":null`) || !strings.Contains(s, `"status":"succeeded","response_status":200`) {
		t.Fatalf("finished delivery = %s", s)
	}
}
