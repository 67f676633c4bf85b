package kassa

import (
	"strings"
	"testing"
)

// wantCode checks that err is a *Error of the given kind, code and param.
func wantCode(t *testing.T, err error, kind ErrorKind, code, param string) {
	t.Helper()
	if err == nil {
		t.Fatalf("got no error, want %s (param %q)", code, param)
	}
	e, ok := err.(*Error)
	if !ok {
		t.Fatalf("got %T %v, want *Error", err, err)
	}
	if e.Kind != kind || e.Code != code || e.Param != param {
		t.Fatalf("got kind %q code %q param %q, want %q %q %q (%v)", e.Kind, e.Code, e.Param, kind, code, param, e)
	}
	if e.Message == "" {
		t.Fatalf("error %s has no message", code)
	}
}

func TestParseUSD(t *testing.T) {
	const (
		ok      = ""
		invalid = "amount_invalid"
		oor     = "amount_out_of_range"
	)
	tests := []struct {
		text string
		want Millis
		code string
	}{
		// Exact values and rounding half away from zero to the milli.
		{"0.0105", 11, ok},
		{"0.0104", 10, ok},
		{"0.1", 100, ok},
		{"0.01", 10, ok},
		{"0.010", 10, ok},
		{"0.0100000000000000000000000000000000000001", 10, ok},
		{"1", 1000, ok},
		{"12.34", 12340, ok},
		{"12.3456", 12346, ok},
		{"12.3455", 12346, ok},
		{"12.3454", 12345, ok},
		{"12.3454999999", 12345, ok},
		{"999999.9994", 999999999, ok},
		{"999999.9995", 1000000000, ok}, // rounds up to exactly the maximum
		{"999999.9999", 1000000000, ok},
		{"1000000", 1000000000, ok},
		{"1000000.0000", 1000000000, ok},
		{"1000000.000000000000", 1000000000, ok},
		{"1e6", 1000000000, ok},
		{"1E6", 1000000000, ok},
		{"1e+6", 1000000000, ok},
		{"1E-2", 10, ok},
		{"10e-3", 10, ok},
		{"0.0005e1", 5, oor}, // 0.005 < 0.01
		{"0.005e1", 50, ok},
		{"0.001e1", 10, ok},
		{"100e-2", 1000, ok},
		{"0e5", 0, oor},
		{"1e0", 1000, ok},
		{"1e00006", 1000000000, ok}, // leading zeros in the exponent
		{"1e-0002", 10, ok},
		{"1.5e-0", 1500, ok},
		{"0.00000000000000000000000000000000000000000000000000001e53", 1000, ok},
		{"12345678901234567890e-15", 12345679, ok},
		// Range is checked on the exact value, before rounding.
		{"0.0099", 0, oor},
		{"0.00999", 0, oor},
		{"0.0099999999999", 0, oor},
		{"0.009", 0, oor},
		{"0.001", 0, oor},
		{"0", 0, oor},
		{"0.0", 0, oor},
		{"1000000.0001", 0, oor},
		{"1000000.0000000000001", 0, oor},
		{"1000000.0004", 0, oor}, // would round to the maximum, but is above it
		{"1000001", 0, oor},
		{"1e7", 0, oor},
		{"1.0000001e6", 0, oor},
		{"9999999999", 0, oor},
		{"99999999999999999999", 0, oor},
		{"-1", 0, oor},
		{"-0", 0, oor},
		{"-0.0", 0, oor},
		{"-12.5", 0, oor},
		{"1e400", 0, oor},
		{"1e9999", 0, oor},
		{"1e-400", 0, oor},
		{"1e-9999", 0, oor},
		// Not JSON numbers.
		{"", 0, invalid},
		{"-", 0, invalid},
		{"01", 0, invalid},
		{"00.5", 0, invalid},
		{"-01", 0, invalid},
		{"1.", 0, invalid},
		{".5", 0, invalid},
		{"+1", 0, invalid},
		{" 1", 0, invalid},
		{"1 ", 0, invalid},
		{"1e", 0, invalid},
		{"1e+", 0, invalid},
		{"1e-", 0, invalid},
		{"1.e5", 0, invalid},
		{"1.5.5", 0, invalid},
		{"1ee5", 0, invalid},
		{"0x10", 0, invalid},
		{"1_000", 0, invalid},
		{"1,5", 0, invalid},
		{"NaN", 0, invalid},
		{"Infinity", 0, invalid},
		{"-Infinity", 0, invalid},
		{"inf", 0, invalid},
		{`"12"`, 0, invalid},
		{"null", 0, invalid},
		{"true", 0, invalid},
		{"[12]", 0, invalid},
		{"１２", 0, invalid}, // full-width digits
		{"1e99999", 0, invalid},
		{"1e-99999", 0, invalid},
		{strings.Repeat("1", 65), 0, invalid},
		{"1." + strings.Repeat("0", 63), 0, invalid}, // 65 characters, although equal to 1
		{"1." + strings.Repeat("0", 62), 1000, ok},   // 64 characters
	}
	for _, tt := range tests {
		t.Run(tt.text, func(t *testing.T) {
			got, err := ParseUSD(tt.text, "amount_usd")
			if tt.code != ok {
				wantCode(t, err, KindInvalid, tt.code, "amount_usd")
				return
			}
			if err != nil {
				t.Fatalf("ParseUSD(%q) = %v, want %d", tt.text, err, tt.want)
			}
			if got != tt.want {
				t.Fatalf("ParseUSD(%q) = %d, want %d", tt.text, got, tt.want)
			}
		})
	}
}

func TestParseUSDParam(t *testing.T) {
	for _, text := range []string{"abc", "0", strings.Repeat("9", 70)} {
		_, err := ParseUSD(text, "items[2].price")
		if e, ok := err.(*Error); !ok || e.Param != "items[2].price" || !strings.Contains(e.Message, "items[2].price") {
			t.Errorf("ParseUSD(%q) error %v does not name the param", text, err)
		}
	}
}

func TestMillisDecimal(t *testing.T) {
	tests := []struct {
		m    Millis
		want string
	}{
		{0, "0.000"},
		{1, "0.001"},
		{5, "0.005"},
		{10, "0.010"},
		{999, "0.999"},
		{1000, "1.000"},
		{1234, "1.234"},
		{12340, "12.340"},
		{MaxInvoiceAmount, "1000000.000"},
		{-1, "-0.001"},
		{-5, "-0.005"},
		{-1234, "-1.234"},
		{9223372036854775807, "9223372036854775.807"},
		{-9223372036854775808, "-9223372036854775.808"},
	}
	for _, tt := range tests {
		if got := tt.m.Decimal(); got != tt.want {
			t.Errorf("Millis(%d).Decimal() = %q, want %q", int64(tt.m), got, tt.want)
		}
	}
}

// Every amount in range survives Decimal and ParseUSD unchanged.
func TestMillisDecimalRoundTrip(t *testing.T) {
	for _, m := range []Millis{10, 11, 99, 100, 101, 999, 1000, 1001, 12345, 999999999, 1000000000} {
		got, err := ParseUSD(m.Decimal(), "amount_usd")
		if err != nil || got != m {
			t.Errorf("ParseUSD(%q) = %d, %v; want %d", m.Decimal(), got, err, m)
		}
	}
}
