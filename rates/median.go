package rates

import (
	"math/big"
	"sort"
	"time"
)

// outlier: a quote more than this fraction away from the median of all answers
// is wrong (a stale market, a unit mix-up, a broken pair) and is left out. Liquid
// markets agree within a fraction of a percent.
var outlier = big.NewRat(1, 10)

// median returns the median of the quotes, exactly (the mean of the middle two
// for an even count), after leaving out those more than 10 % away from the
// median of all, and the time of the oldest quote it used. ok is false when
// nothing is left: two sources that disagree cannot be told apart. qs must not
// be empty.
func median(qs []Quote) (price *big.Rat, at time.Time, ok bool) {
	m := mid(qs)
	band := new(big.Rat).Mul(m, outlier)
	low, high := new(big.Rat).Sub(m, band), new(big.Rat).Add(m, band)
	var kept []Quote
	for _, q := range qs {
		if q.USD.Cmp(low) >= 0 && q.USD.Cmp(high) <= 0 {
			kept = append(kept, q)
		}
	}
	if len(kept) == 0 {
		return nil, time.Time{}, false
	}
	at = kept[0].At
	for _, q := range kept[1:] {
		if q.At.Before(at) {
			at = q.At
		}
	}
	return mid(kept), at, true
}

// mid is the plain median of the quotes' prices.
func mid(qs []Quote) *big.Rat {
	ps := make([]*big.Rat, len(qs))
	for i, q := range qs {
		ps[i] = q.USD
	}
	sort.Slice(ps, func(i, j int) bool { return ps[i].Cmp(ps[j]) < 0 })
	n := len(ps)
	if n%2 == 1 {
		return new(big.Rat).Set(ps[n/2])
	}
	sum := new(big.Rat).Add(ps[n/2-1], ps[n/2])
	return sum.Quo(sum, big.NewRat(2, 1))
}
