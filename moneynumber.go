package kassa

import "strings"

// Number renders m in USD as the shortest exact decimal, for a JSON number:
// 19990 is "19.99", 20000 is "20", 5 is "0.005".
func (m Millis) Number() string {
	s := m.Decimal()
	s = strings.TrimRight(s, "0")
	return strings.TrimSuffix(s, ".")
}

// Cents renders m in USD with exactly two decimals, rounded half away from zero:
// 19990 is "19.99", 20000 is "20.00", 5 is "0.01".
func (m Millis) Cents() string {
	c := roundCents(m)
	s := c.Decimal()
	return s[:len(s)-1]
}

// roundCents rounds m to whole cents, half away from zero.
func roundCents(m Millis) Millis {
	r := m % 10
	switch {
	case r >= 5:
		return m - r + 10
	case r <= -5:
		return m - r - 10
	}
	return m - r
}
