package registry

import (
	"math/big"
	"strings"

	"kassa"
)

// maxUnitsLen bounds the text ParseUnits accepts; longer text is refused before any
// arithmetic. 100 characters hold any realistic token amount at 36 decimals.
const maxUnitsLen = 100

// ParseUnits reads a non-negative decimal amount of whole tokens, such as "12.5",
// and returns it exactly in the token's smallest unit. It accepts digits with at most
// one point and at most decimals digits after it ("12.50" is fine at 2 decimals,
// "0.001" is not); signs, exponents, a leading or trailing point, redundant leading
// zeros ("012") and text over 100 characters are refused with a KindInvalid error.
// decimals must be 0..MaxDecimals. ParseUnits(kassa.FormatUnits(u, d), d) is u for every
// u >= 0.
func ParseUnits(decimal string, decimals int) (*big.Int, error) {
	if decimals < 0 || decimals > MaxDecimals {
		return nil, kassa.Invalidf("decimals", "decimals_invalid", "decimals must be between 0 and %d.", MaxDecimals)
	}
	bad := kassa.Invalidf("amount", "amount_invalid", "amount must be a decimal number of whole tokens such as 12.5.")
	if decimal == "" || len(decimal) > maxUnitsLen {
		return nil, bad
	}
	whole, frac, hasPoint := strings.Cut(decimal, ".")
	if !allDigits(whole) || (hasPoint && !allDigits(frac)) {
		return nil, bad
	}
	if len(whole) > 1 && whole[0] == '0' {
		return nil, bad
	}
	if len(frac) > decimals {
		return nil, kassa.Invalidf("amount", "amount_too_precise",
			"amount has more than %d digits after the point.", decimals)
	}
	u, ok := new(big.Int).SetString(whole+frac+strings.Repeat("0", decimals-len(frac)), 10)
	if !ok {
		return nil, bad
	}
	return u, nil
}

// allDigits reports whether s is one or more ASCII digits.
func allDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
