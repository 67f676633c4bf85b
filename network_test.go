package kassa

import (
	"math/big"
	"strings"
	"testing"
)

// rat parses an exact rational or fails the test.
func rat(t *testing.T, s string) *big.Rat {
	t.Helper()
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		t.Fatalf("bad rational %q", s)
	}
	return r
}

// checkMinimal fails unless units is the smallest token amount worth at least
// amount at price: units × price ≥ amount and (units − 1) × price < amount.
func checkMinimal(t *testing.T, amount Millis, decimals int, price *big.Rat, units *big.Int) {
	t.Helper()
	want := new(big.Rat).SetFrac64(int64(amount), 1000)
	scale := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(decimals)), nil)
	worth := func(u *big.Int) *big.Rat {
		return new(big.Rat).Mul(new(big.Rat).SetFrac(u, scale), price)
	}
	if worth(units).Cmp(want) < 0 {
		t.Errorf("%d millis at %s: %s units are worth less than the amount", amount, price, units)
	}
	if less := new(big.Int).Sub(units, big.NewInt(1)); less.Sign() >= 0 && worth(less).Cmp(want) >= 0 {
		t.Errorf("%d millis at %s: %s units are more than needed", amount, price, units)
	}
}

// TestTokenUnits checks the quote arithmetic: exact, rounded up so the merchant is
// never short, and the smallest such amount.
func TestTokenUnits(t *testing.T) {
	tests := []struct {
		name        string
		amount      Millis
		decimals    int
		price       string
		wantUnits   string
		wantDecimal string
	}{
		{"stable 18", 12345, 18, "1", "12345000000000000000", "12.345"},
		{"stable 6", 12345, 6, "1", "12345000", "12.345"},
		{"stable minimum 6", 10, 6, "1", "10000", "0.01"},
		{"stable minimum 18", 10, 18, "1", "10000000000000000", "0.01"},
		{"stable maximum", MaxInvoiceAmount, 6, "1", "1000000000000", "1000000"},
		{"native 12.5 at 600", 12500, 18, "600.00", "20833333333333334", "0.020833333333333334"},
		{"native minimum at 600", 10, 18, "600", "16666666666667", "0.000016666666666667"},
		{"native exact at 3000", 6000, 18, "3000.00", "2000000000000000", "0.002"},
		{"a third rounds up", 1000, 6, "3", "333334", "0.333334"},
		{"two thirds rounds up", 2000, 6, "3", "666667", "0.666667"},
		{"non-terminating price", 1000, 18, "7", "142857142857142858", "0.142857142857142858"},
		{"fractional price", 1000, 2, "0.25", "400", "4"},
		{"zero decimals rounds up", 1000, 0, "600", "1", "1"},
		{"price above a dollar of a stablecoin", 100000, 6, "1.0001", "99990001", "99.990001"},
		{"price below a dollar of a stablecoin", 100000, 6, "0.9999", "100010002", "100.010002"},
		{"36 decimals tiny price", MaxInvoiceAmount, 36, "0.000001", "1" + strings.Repeat("0", 48), "1" + strings.Repeat("0", 12)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			price := rat(t, tt.price)
			units := TokenUnits(tt.amount, tt.decimals, price)
			if units.String() != tt.wantUnits || FormatUnits(units, tt.decimals) != tt.wantDecimal {
				t.Fatalf("got %s (%s), want %s (%s)", units, FormatUnits(units, tt.decimals), tt.wantUnits, tt.wantDecimal)
			}
			checkMinimal(t, tt.amount, tt.decimals, price, units)
		})
	}
}

func TestTokenUnitsMinimalSweep(t *testing.T) {
	prices := []string{"1", "3", "600", "3000.00", "0.9997", "1.0003", "123.456789", "0.00001234", "98765.4321", "1/7"}
	for _, p := range prices {
		price := rat(t, p)
		for _, d := range []int{0, 2, 6, 8, 18} {
			for _, amount := range []Millis{1, 7, 10, 999, 1001, 12345, 99999, 5_000_001, MaxInvoiceAmount} {
				checkMinimal(t, amount, d, price, TokenUnits(amount, d, price))
			}
		}
	}
}
