package main

import "testing"

// TestAPIErrorMessage: an error answer of the API reaches the terminal as its
// code and message, not as raw JSON (issue 37, finding 10); a body that is no
// error object is shown as it came.
func TestAPIErrorMessage(t *testing.T) {
	tests := []struct {
		name string
		err  apiError
		want string
	}{
		{"merchant API", apiError{410, `{"error":{"type":"invalid_request_error","code":"invoice_expired","message":"This invoice has expired.","param":null}}`},
			"HTTP 410 invoice_expired: This invoice has expired."},
		{"commerce envelope", apiError{409, `{"success":false,"error":{"code":"invalid_transition","message":"Cannot move the order."}}`},
			"HTTP 409 invalid_transition: Cannot move the order."},
		{"not JSON", apiError{502, "Bad Gateway"}, "HTTP 502: Bad Gateway"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.err.Error(); got != tt.want {
				t.Fatalf("%q, want %q", got, tt.want)
			}
		})
	}
}
