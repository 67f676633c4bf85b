package rates

import (
	"context"
	"math/big"
	"time"

	"kassa"
)

// peg: a stablecoin more than this fraction off 1 USD is not taken at 1:1.
var peg = big.NewRat(2, 100)

// Rate prices t: its pinned rate, the Static rate of a token no source covers,
// or the median of the fresh quotes (see Live).
func (l *Live) Rate(ctx context.Context, t kassa.Token) (kassa.Rate, error) {
	if l.Pinned != nil {
		if r, ok := l.Pinned(t); ok {
			return r, nil
		}
	}
	if !l.covered(t.Symbol) {
		return l.static(ctx, t)
	}
	fresh, newest := l.fresh(t.Symbol)
	if len(fresh) == 0 {
		if t.Stable {
			return l.static(ctx, t) // no source says otherwise: the peg holds
		}
		if newest.IsZero() {
			return kassa.Rate{}, unavailable("No %s rate has been fetched from the rate sources yet.", t.Symbol)
		}
		return kassa.Rate{}, unavailable("The %s rate is stale: last updated %s, more than %d minutes ago.",
			t.Symbol, kassa.FormatTime(newest), int(l.maxAge().Minutes()))
	}
	price, at, ok := median(fresh)
	if !ok {
		return kassa.Rate{}, unavailable("The rate sources disagree on the %s price by more than 10 %%.", t.Symbol)
	}
	if !t.Stable {
		return kassa.Rate{USDPerToken: price, UpdatedAt: at}, nil
	}
	off := new(big.Rat).Sub(price, big.NewRat(1, 1))
	if off.Abs(off).Cmp(peg) > 0 {
		return kassa.Rate{}, unavailable("%s is off its peg: the rate sources price it at %s USD, more than 2 %% from 1 USD.",
			t.Symbol, price.FloatString(4))
	}
	return kassa.Rate{USDPerToken: big.NewRat(1, 1), UpdatedAt: at}, nil
}

// covered reports whether any source prices symbol.
func (l *Live) covered(symbol string) bool {
	for _, s := range l.Sources {
		if s.Covers(symbol) {
			return true
		}
	}
	return false
}

// fresh returns the quotes of symbol no older than MaxAge, and the time of the
// newest quote, fresh or not (zero: never quoted).
func (l *Live) fresh(symbol string) ([]Quote, time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	cutoff := l.now().Add(-l.maxAge())
	var out []Quote
	var newest time.Time
	for _, q := range l.quotes[symbol] {
		if q.At.After(newest) {
			newest = q.At
		}
		if !q.At.Before(cutoff) {
			out = append(out, Quote{USD: new(big.Rat).Set(q.USD), At: q.At})
		}
	}
	return out, newest
}

func (l *Live) static(ctx context.Context, t kassa.Token) (kassa.Rate, error) {
	if l.Static == nil {
		return kassa.Rate{}, unavailable("No rate is available for %s on %s.", t.Symbol, t.Network)
	}
	return l.Static.Rate(ctx, t)
}

func unavailable(format string, args ...any) error {
	return kassa.Errorf(kassa.KindConflict, "rate_unavailable", format, args...)
}
