package kassa

import (
	"testing"
)

func TestWebhookEndpointWants(t *testing.T) {
	tests := []struct {
		name   string
		status string
		events []string
		typ    string
		want   bool
	}{
		{"all", EndpointEnabled, []string{"*"}, EventOrderCreated, true},
		{"family", EndpointEnabled, []string{"invoice.*"}, EventInvoicePaid, true},
		{"other family", EndpointEnabled, []string{"invoice.*"}, EventPaymentCreated, false},
		{"exact", EndpointEnabled, []string{EventInvoicePaid, EventInvoiceExpired}, EventInvoiceExpired, true},
		{"disabled wants nothing", EndpointDisabled, []string{"*"}, EventInvoicePaid, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := WebhookEndpoint{Status: tt.status, EnabledEvents: tt.events}
			if got := e.Wants(tt.typ); got != tt.want {
				t.Fatalf("Wants(%q) = %v, want %v", tt.typ, got, tt.want)
			}
		})
	}
}
