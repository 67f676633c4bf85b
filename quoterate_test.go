package kassa

import (
	"math/big"
	"testing"
	"time"
)

func TestQuoteHolds(t *testing.T) {
	expires := time.Date(2026, 11, 29, 12, 15, 0, 0, time.UTC)
	tests := []struct {
		name  string
		block time.Time
		want  bool
	}{
		{"inside the window", expires.Add(-10 * time.Minute), true},
		{"at the quote's start", expires.Add(-QuoteLock), true},
		{"inside the grace before its start", expires.Add(-QuoteLock - QuoteGrace), true},
		{"before the quote was given", expires.Add(-QuoteLock - QuoteGrace - time.Second), false},
		{"hours before", expires.Add(-3 * time.Hour), false},
		{"at expiry", expires, true},
		{"inside the grace", expires.Add(QuoteGrace - time.Second), true},
		{"at the end of the grace", expires.Add(QuoteGrace), true},
		{"a second past the grace", expires.Add(QuoteGrace + time.Second), false},
		{"days later", expires.Add(72 * time.Hour), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := QuoteHolds(expires, tt.block); got != tt.want {
				t.Fatalf("QuoteHolds(%v, %v) = %v, want %v", expires, tt.block, got, tt.want)
			}
		})
	}
}

func TestLateRate(t *testing.T) {
	r := func(s string) *big.Rat {
		t.Helper()
		v, ok := new(big.Rat).SetString(s)
		if !ok {
			t.Fatalf("bad rat %q", s)
		}
		return v
	}
	tests := []struct {
		name           string
		locked, market *big.Rat
		want           *big.Rat // nil: unpriced
	}{
		{"the token fell: the market", r("2000"), r("200"), r("200")},
		{"the token rose: never better than locked", r("2000"), r("2500"), r("2000")},
		{"unchanged", r("2000"), r("2000"), r("2000")},
		{"a stablecoin in its peg", r("1"), r("1"), r("1")},
		{"no market rate: unpriced", r("2000"), nil, nil},
		{"a zero market rate: unpriced", r("2000"), r("0"), nil},
		{"no locked rate: the market", nil, r("3"), r("3")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := LateRate(tt.locked, tt.market)
			if (got == nil) != (tt.want == nil) || (got != nil && got.Cmp(tt.want) != 0) {
				t.Fatalf("LateRate(%v, %v) = %v, want %v", tt.locked, tt.market, got, tt.want)
			}
		})
	}
	// A payment of 0.05 ETH quoted at 2,000 USD, sent after the quote ran out
	// with ETH at 200 USD, is worth 10 USD, not 100.
	units := new(big.Int).Mul(big.NewInt(5), new(big.Int).Exp(big.NewInt(10), big.NewInt(16), nil))
	if got := TokenMillis(units, 18, LateRate(r("2000"), r("200"))); got != 10_000 {
		t.Fatalf("0.05 ETH at the late rate = %d millis, want 10000", got)
	}
}
