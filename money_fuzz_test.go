package kassa

import (
	"math/big"
	"regexp"
	"strings"
	"testing"
)

// jsonNumber is the number grammar of RFC 8259.
var jsonNumber = regexp.MustCompile(`^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$`)

// refUSD is the reference for ParseUSD: the exact value of a JSON number text with
// math/big, whether it lies in 0.01..1000000, and its milli value rounded half away
// from zero. ok is false when the text is no JSON number or its exponent is too long
// to evaluate cheaply.
func refUSD(t *testing.T, text string) (millis Millis, inRange, ok bool) {
	t.Helper()
	if !jsonNumber.MatchString(text) {
		return 0, false, false
	}
	if i := strings.IndexAny(text, "eE"); i >= 0 {
		exp := strings.TrimLeft(strings.TrimLeft(text[i+1:], "+-"), "0")
		if len(exp) > 3 {
			return 0, false, false
		}
	}
	x, good := new(big.Rat).SetString(text)
	if !good {
		t.Fatalf("big.Rat cannot read JSON number %q", text)
	}
	min := big.NewRat(1, 100)
	max := big.NewRat(1000000, 1)
	if x.Cmp(min) < 0 || x.Cmp(max) > 0 {
		return 0, false, true
	}
	x.Mul(x, big.NewRat(1000, 1))
	q, r := new(big.Int).QuoRem(x.Num(), x.Denom(), new(big.Int))
	if r.Lsh(r, 1).Cmp(x.Denom()) >= 0 {
		q.Add(q, big.NewInt(1))
	}
	return Millis(q.Int64()), true, true
}

func FuzzParseUSD(f *testing.F) {
	for _, s := range []string{
		"0.0105", "0.1", "0.01", "0.0099", "0.00999", "1000000", "1000000.0000",
		"1000000.0001", "1e6", "1E-2", "10e-3", "0.0005e1", "12.3456", "12.3454",
		"12.3455", "999999.9995", "-1", "-0", "01", "1.", ".5", "NaN", "Infinity",
		`"12"`, "1e400", "1e99999", "1e-9999", strings.Repeat("9", 65), "0", "",
		"1e0006", "1e00006", "0.000000000000000000000000000000000000000000000000000000000001e58",
		"100000000000000000000000000000000000000e-33", "1e+006", "5e-3", "5.0e-3",
		"9.9999e-3", "1000000e0", "1.0000000000000000000000000000000000000000000000000000000000001e6",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		got, err := ParseUSD(text, "amount_usd")
		if err != nil {
			e, isErr := err.(*Error)
			if !isErr || e.Kind != KindInvalid || e.Param != "amount_usd" ||
				(e.Code != "amount_invalid" && e.Code != "amount_out_of_range") {
				t.Fatalf("ParseUSD(%q): unexpected error %#v", text, err)
			}
		}
		if err == nil && !jsonNumber.MatchString(text) {
			t.Fatalf("ParseUSD(%q) = %d, but the text is no JSON number", text, got)
		}
		want, inRange, ok := refUSD(t, text)
		if !ok {
			return
		}
		switch {
		case err == nil && !inRange:
			t.Fatalf("ParseUSD(%q) = %d, but the value is out of range", text, got)
		case err == nil && got != want:
			t.Fatalf("ParseUSD(%q) = %d, want %d", text, got, want)
		case err != nil && inRange && len(text) <= maxNumberLen:
			t.Fatalf("ParseUSD(%q) = %v, want %d", text, err, want)
		case err != nil && !inRange && len(text) <= maxNumberLen && ErrorCode(err) != "amount_out_of_range":
			t.Fatalf("ParseUSD(%q) = %v, want amount_out_of_range", text, err)
		}
	})
}
