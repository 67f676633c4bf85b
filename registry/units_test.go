package registry

import (
	"math/big"
	"strings"
	"testing"

	"github.com/kassapay/kassa"
)

// bigInt parses a base-10 integer or fails the test.
func bigInt(t *testing.T, s string) *big.Int {
	t.Helper()
	v, ok := new(big.Int).SetString(s, 10)
	if !ok {
		t.Fatalf("bad integer %q", s)
	}
	return v
}

func TestFormatUnits(t *testing.T) {
	tests := []struct {
		units    string
		decimals int
		want     string
	}{
		{"0", 18, "0"},
		{"0", 0, "0"},
		{"1", 6, "0.000001"},
		{"12500000", 6, "12.5"},
		{"12345000", 6, "12.345"},
		{"3000000", 6, "3"},
		{"1000000", 6, "1"},
		{"999999", 6, "0.999999"},
		{"12345000000000000000", 18, "12.345"},
		{"1", 18, "0.000000000000000001"},
		{"123", 0, "123"},
		{"123", -2, "123"},
		{"-1500", 3, "-1.5"},
		{"1" + strings.Repeat("0", 36), 36, "1"},
		{"100000000000000000000000000000000000000000", 36, "100000"},
	}
	for _, tt := range tests {
		if got := kassa.FormatUnits(bigInt(t, tt.units), tt.decimals); got != tt.want {
			t.Errorf("kassa.FormatUnits(%s, %d) = %q, want %q", tt.units, tt.decimals, got, tt.want)
		}
	}
	if got := kassa.FormatUnits(nil, 6); got != "0" {
		t.Errorf("kassa.FormatUnits(nil) = %q", got)
	}
}
