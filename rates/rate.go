package rates

import (
	"context"
	"math/big"
	"time"

	"github.com/kassapay/kassa"
)

// peg: a stablecoin more than this fraction off 1 USD is not taken at 1:1.
var peg = big.NewRat(2, 100)

// Rate prices t: its pinned rate, the Static rate of a token no source covers,
// or the median of the fresh quotes (see Live).
func (l *Live) Rate(ctx context.Context, t kassa.Token) (kassa.Rate, error) {
	if r, ok, err := l.fixed(ctx, t); ok {
		return r, err
	}
	return l.judge(ctx, t, l.pointNow(t.Symbol))
}

// fixed prices t when no source's quotes decide: its pinned rate, or the Static
// rate of a token no source covers. ok is false for a token the sources price.
func (l *Live) fixed(ctx context.Context, t kassa.Token) (r kassa.Rate, ok bool, err error) {
	if l.Pinned != nil {
		if r, ok := l.Pinned(t); ok {
			return r, true, nil
		}
	}
	if !l.covered(t.Symbol) {
		r, err := l.static(ctx, t)
		return r, true, err
	}
	return kassa.Rate{}, false, nil
}

// point is what the sources said of one symbol at one time: the median of the
// quotes then fresh and its time, and the time of the newest quote, fresh or not.
type point struct {
	at     time.Time // when it was taken
	fresh  int       // how many quotes were fresh
	price  *big.Rat  // nil when the fresh quotes disagree (or there are none)
	priced time.Time // the time of the oldest quote the median used
	newest time.Time // zero: never quoted
}

// pointNow takes symbol's point at the present.
func (l *Live) pointNow(symbol string) point {
	fresh, newest := l.fresh(symbol)
	p := point{at: l.now(), fresh: len(fresh), newest: newest}
	if len(fresh) > 0 {
		if price, at, ok := median(fresh); ok {
			p.price, p.priced = price, at
		}
	}
	return p
}

// judge turns a point into t's rate: unavailable when nothing was fresh or the
// sources disagreed; a stablecoin exactly 1 USD unless the point puts it more
// than 2 % off the peg.
func (l *Live) judge(ctx context.Context, t kassa.Token, p point) (kassa.Rate, error) {
	if p.fresh == 0 {
		if t.Stable {
			return l.static(ctx, t) // no source says otherwise: the peg holds
		}
		if p.newest.IsZero() {
			return kassa.Rate{}, unavailable("No %s rate has been fetched from the rate sources yet.", t.Symbol)
		}
		return kassa.Rate{}, unavailable("The %s rate is stale: last updated %s, more than %d minutes ago.",
			t.Symbol, kassa.FormatTime(p.newest), int(l.maxAge().Minutes()))
	}
	if p.price == nil {
		return kassa.Rate{}, unavailable("The rate sources disagree on the %s price by more than 10 %%.", t.Symbol)
	}
	if !t.Stable {
		return kassa.Rate{USDPerToken: new(big.Rat).Set(p.price), UpdatedAt: p.priced}, nil
	}
	off := new(big.Rat).Sub(p.price, big.NewRat(1, 1))
	if off.Abs(off).Cmp(peg) > 0 {
		return kassa.Rate{}, unavailable("%s is off its peg: the rate sources price it at %s USD, more than 2 %% from 1 USD.",
			t.Symbol, p.price.FloatString(4))
	}
	return kassa.Rate{USDPerToken: big.NewRat(1, 1), UpdatedAt: p.priced}, nil
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
