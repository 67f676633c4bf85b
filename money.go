package kassa

import (
	"strconv"
	"strings"
)

// Millis is an amount of US dollars in thousandths (usd_millis). All USD amounts
// inside Kassa are Millis; floats never touch money.
type Millis int64

// Invoice amount bounds: 0.01 USD to 1,000,000 USD.
const (
	MinInvoiceAmount Millis = 10
	MaxInvoiceAmount Millis = 1_000_000_000
)

// maxNumberLen bounds the JSON number text ParseUSD accepts; longer text is refused
// before any work is done on it.
const maxNumberLen = 64

// Decimal renders m as a decimal string with exactly three decimals, "12.340".
func (m Millis) Decimal() string {
	neg := m < 0
	u := uint64(m)
	if neg {
		u = uint64(-m)
	}
	s := strconv.FormatUint(u/1000, 10) + "." + pad3(u%1000)
	if neg {
		return "-" + s
	}
	return s
}

func pad3(v uint64) string {
	s := strconv.FormatUint(v, 10)
	return strings.Repeat("0", 3-len(s)) + s
}

// ParseUSD reads an invoice amount from the text of a JSON number exactly (never
// through a float), checks 0.01 <= x <= 1000000 on the exact value, then rounds half
// away from zero to the milli: "0.0105" is 11, "0.1" is 100. param names the field in
// errors. Strings, NaN, negative numbers, huge exponents and over-long digit strings
// are refused with a *Error of KindInvalid.
func ParseUSD(text, param string) (Millis, error) {
	if len(text) > maxNumberLen {
		return 0, Invalidf(param, "amount_invalid", "%s has too many digits.", param)
	}
	digits, exp, neg, ok := splitNumber(text)
	if !ok {
		return 0, Invalidf(param, "amount_invalid", "%s must be a JSON number such as 12.5.", param)
	}
	outOfRange := Invalidf(param, "amount_out_of_range", "%s must be between 0.01 and 1000000.", param)
	digits = strings.TrimLeft(digits, "0")
	if neg && digits != "" {
		return 0, outOfRange
	}
	// value = digits × 10^exp; millis = digits × 10^(exp+3).
	shift := exp + 3
	intLen := len(digits) + shift // digits left of the milli point
	if digits == "" || intLen < 2 {
		return 0, outOfRange // below 10 millis, i.e. below 0.01 USD
	}
	if intLen > 10 {
		return 0, outOfRange // at least 10^10 millis, far above the maximum
	}
	var whole, rest string
	if shift >= 0 {
		whole = digits + strings.Repeat("0", shift)
	} else {
		whole, rest = digits[:intLen], digits[intLen:]
	}
	v, err := strconv.ParseInt(whole, 10, 64)
	if err != nil {
		return 0, outOfRange
	}
	fraction := strings.TrimRight(rest, "0") != ""
	if v > int64(MaxInvoiceAmount) || (v == int64(MaxInvoiceAmount) && fraction) {
		return 0, outOfRange
	}
	if v < int64(MinInvoiceAmount) {
		return 0, outOfRange
	}
	if rest != "" && rest[0] >= '5' {
		v++ // half away from zero; the value is positive here
	}
	return Millis(v), nil
}

// splitNumber splits JSON number text into its significant digits (integer and
// fraction digits joined) and a power-of-ten exponent, so value = digits × 10^exp.
func splitNumber(s string) (digits string, exp int, neg, ok bool) {
	if strings.HasPrefix(s, "-") {
		neg, s = true, s[1:]
	}
	intPart, s := leadingDigits(s)
	if intPart == "" || (len(intPart) > 1 && intPart[0] == '0') {
		return "", 0, false, false
	}
	var frac string
	if strings.HasPrefix(s, ".") {
		frac, s = leadingDigits(s[1:])
		if frac == "" {
			return "", 0, false, false
		}
	}
	if s != "" {
		if s[0] != 'e' && s[0] != 'E' {
			return "", 0, false, false
		}
		s = s[1:]
		sign := 1
		if s != "" && (s[0] == '+' || s[0] == '-') {
			if s[0] == '-' {
				sign = -1
			}
			s = s[1:]
		}
		e, rest := leadingDigits(s)
		if e == "" || rest != "" {
			return "", 0, false, false
		}
		// Leading zeros add nothing ("1e0006" is 1e6); past four digits the
		// exponent is beyond any amount and refused as malformed.
		if e = strings.TrimLeft(e, "0"); len(e) > 4 {
			return "", 0, false, false
		}
		n, _ := strconv.Atoi(e)
		exp = sign * n
	}
	return intPart + frac, exp - len(frac), neg, true
}

func leadingDigits(s string) (digits, rest string) {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return s[:i], s[i:]
}

// ParsePrice reads a non-negative plain decimal of US dollars ("12", "12.5",
// ".5") exactly, rounding half up beyond the milli. It allows at most 10 whole
// digits and 64 characters, and no sign, exponent or spaces: search filters and
// upstream retailer prices use it.
func ParsePrice(text string) (Millis, bool) {
	whole, frac, _ := strings.Cut(text, ".")
	if len(text) > maxNumberLen || (whole == "" && frac == "") || len(whole) > 10 ||
		(whole != "" && !AllDigits(whole)) || (frac != "" && !AllDigits(frac)) {
		return 0, false
	}
	var m int64
	for _, c := range whole + (frac + "000")[:3] {
		m = m*10 + int64(c-'0')
	}
	if len(frac) > 3 && frac[3] >= '5' {
		m++
	}
	return Millis(m), true
}

// AllDigits reports whether s is one or more ASCII digits.
func AllDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}
