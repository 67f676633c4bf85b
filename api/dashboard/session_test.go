package dashboard

import "testing"

func TestSafeNext(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", "/dashboard"},
		{"/dashboard", "/dashboard"},
		{"/dashboard/invoices?q=x", "/dashboard/invoices?q=x"},
		{"/dashboard?x=1", "/dashboard?x=1"},
		{"/dashboardx", "/dashboard"},
		{"//evil.example/dashboard/", "/dashboard"},
		{"/dashboard//evil.example", "/dashboard"},
		{"https://evil.example/dashboard/", "/dashboard"},
		{"/dashboard/\\evil", "/dashboard"},
		{"/dashboard/@evil", "/dashboard"},
		{"/api/v1/invoices", "/dashboard"},
	}
	for _, tt := range tests {
		if got := safeNext(tt.in); got != tt.want {
			t.Errorf("safeNext(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
