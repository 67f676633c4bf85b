package kassa

import "testing"

func TestMillisUSD(t *testing.T) {
	tests := []struct {
		m    Millis
		want string
	}{
		{0, "$0.00"},
		{5, "$0.005"},
		{10, "$0.01"},
		{12500, "$12.50"},
		{12505, "$12.505"}, // never rounded to $12.51 (issue 37, finding 4)
		{12504, "$12.504"}, // nor to $12.50
		{12999, "$12.999"},
		{20000, "$20.00"},
		{1_000_000_000, "$1000000.00"},
		{-2500, "-$2.50"},
		{-5, "-$0.005"},
	}
	for _, tt := range tests {
		if got := tt.m.USD(); got != tt.want {
			t.Errorf("Millis(%d).USD() = %q, want %q", tt.m, got, tt.want)
		}
	}
}
