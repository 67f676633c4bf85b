package registry

import (
	"math/big"
	"strings"
	"testing"

	"kassa"
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

func TestParseUnits(t *testing.T) {
	tests := []struct {
		text     string
		decimals int
		want     string
	}{
		{"0", 6, "0"},
		{"0.0", 6, "0"},
		{"12.5", 6, "12500000"},
		{"12.500000", 6, "12500000"},
		{"0.000001", 6, "1"},
		{"12.345", 18, "12345000000000000000"},
		{"7", 0, "7"},
		{"1", 36, "1" + strings.Repeat("0", 36)},
		{"0.000000000000000001", 18, "1"},
	}
	for _, tt := range tests {
		got, err := ParseUnits(tt.text, tt.decimals)
		if err != nil {
			t.Errorf("ParseUnits(%q, %d): %v", tt.text, tt.decimals, err)
			continue
		}
		if got.String() != tt.want {
			t.Errorf("ParseUnits(%q, %d) = %s, want %s", tt.text, tt.decimals, got, tt.want)
		}
	}
}

func TestParseUnitsRejects(t *testing.T) {
	tests := []struct {
		text     string
		decimals int
		code     string
	}{
		{"", 6, "amount_invalid"},
		{"-1", 6, "amount_invalid"},
		{"+1", 6, "amount_invalid"},
		{"1e6", 6, "amount_invalid"},
		{".5", 6, "amount_invalid"},
		{"5.", 6, "amount_invalid"},
		{"1.2.3", 6, "amount_invalid"},
		{"012", 6, "amount_invalid"},
		{" 1", 6, "amount_invalid"},
		{"1,5", 6, "amount_invalid"},
		{"0x10", 6, "amount_invalid"},
		{"１", 6, "amount_invalid"}, // a full-width digit
		{strings.Repeat("9", 101), 6, "amount_invalid"},
		{"0.0000001", 6, "amount_too_precise"},
		{"1.0", 0, "amount_too_precise"},
		{"1", -1, "decimals_invalid"},
		{"1", 37, "decimals_invalid"},
	}
	for _, tt := range tests {
		_, err := ParseUnits(tt.text, tt.decimals)
		if kassa.ErrorKindOf(err) != kassa.KindInvalid || kassa.ErrorCode(err) != tt.code {
			t.Errorf("ParseUnits(%q, %d) error %v, want %s", tt.text, tt.decimals, err, tt.code)
		}
	}
}

func TestUnitsRoundTrip(t *testing.T) {
	values := []string{"0", "1", "9", "10", "999999", "1000000", "12345678901234567890",
		"100000000000000000000000000000000000001", strings.Repeat("7", 60)}
	for _, v := range values {
		for _, d := range []int{0, 1, 2, 6, 8, 18, 36} {
			u := bigInt(t, v)
			s := kassa.FormatUnits(u, d)
			back, err := ParseUnits(s, d)
			if err != nil {
				t.Errorf("ParseUnits(kassa.FormatUnits(%s, %d) = %q): %v", v, d, s, err)
				continue
			}
			if back.Cmp(u) != 0 {
				t.Errorf("round trip of %s at %d decimals via %q gave %s", v, d, s, back)
			}
		}
	}
}

// FuzzParseUnits checks that ParseUnits never panics, that whatever it accepts
// formats back to the same text less redundant fraction zeros, and that parsing
// that canonical text again gives the same amount (Parse∘Format is the identity).
func FuzzParseUnits(f *testing.F) {
	seeds := []struct {
		text     string
		decimals int
	}{
		{"12.5", 6}, {"0.000001", 6}, {"0", 18}, {"12.345", 18}, {"1e6", 6}, {"-1", 6},
		{".5", 6}, {"5.", 6}, {"012", 6}, {"1.0000000", 6}, {"99999999999999999999", 0},
		{"0.00", 2}, {"", 6}, {"1", 40}, {"1", -3}, {"١٢", 2},
	}
	for _, s := range seeds {
		f.Add(s.text, s.decimals)
	}
	f.Fuzz(func(t *testing.T, text string, decimals int) {
		u, err := ParseUnits(text, decimals)
		if err != nil {
			return
		}
		if u.Sign() < 0 {
			t.Fatalf("ParseUnits(%q, %d) = %s, negative", text, decimals, u)
		}
		s := kassa.FormatUnits(u, decimals)
		want := text
		if strings.Contains(want, ".") {
			want = strings.TrimSuffix(strings.TrimRight(want, "0"), ".")
		}
		if want == "" {
			want = "0"
		}
		if s != want {
			t.Fatalf("kassa.FormatUnits(ParseUnits(%q, %d)) = %q, want %q", text, decimals, s, want)
		}
		back, err := ParseUnits(s, decimals)
		if err != nil || back.Cmp(u) != 0 {
			t.Fatalf("ParseUnits(%q, %d) = %v, %v; want %s", s, decimals, back, err, u)
		}
	})
}
