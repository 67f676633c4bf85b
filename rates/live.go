package rates

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/kassapay/kassa"
)

// Defaults of Live (decisions.md, "Chains", Rates).
const (
	DefaultEvery  = time.Minute      // how often the sources are asked
	DefaultMaxAge = 10 * time.Minute // a rate older than this is unavailable
)

// Live is a kassa.RateSource over live sources. A token with a pinned rate (the
// dev chain's ETH: dev money has no market) keeps it; a token no source covers
// (testnet coins) is priced by Static; any other token is the median of the
// sources' fresh quotes, and unavailable when none is fresher than MaxAge. A
// stablecoin is exactly 1 USD unless the sources put it more than 2 % off the
// peg. Refresh or Run fills it; it is safe for concurrent use.
type Live struct {
	Sources []Source
	Symbols []string                             // the tokens to ask for
	Static  kassa.RateSource                     // prices what no source covers
	Pinned  func(kassa.Token) (kassa.Rate, bool) // fixed rates that win over the sources; nil: none
	MaxAge  time.Duration                        // 0: DefaultMaxAge
	Now     func() time.Time                     // nil: time.Now
	Log     *slog.Logger                         // nil: slog.Default()

	mu      sync.Mutex
	quotes  map[string]map[string]Quote // symbol → source → its last good quote
	wait    map[string]time.Time        // source → not to be asked before
	history map[string][]point          // symbol → its points, oldest first (RateAt)
}

var _ kassa.RateSource = (*Live)(nil)

// Run refreshes the quotes every interval until ctx ends.
func (l *Live) Run(ctx context.Context, every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			l.Refresh(ctx)
		}
	}
}

// Refresh asks every source not waiting out a 429, at once, and keeps each good
// quote with its time. A failing source keeps its last quotes, which age.
func (l *Live) Refresh(ctx context.Context) {
	type answer struct {
		src    Source
		quotes map[string]Quote
		err    error
	}
	now := l.now()
	answers := make(chan answer, len(l.Sources))
	asked := 0
	for _, src := range l.Sources {
		l.mu.Lock()
		until := l.wait[src.Name()]
		l.mu.Unlock()
		if now.Before(until) {
			continue
		}
		asked++
		go func() {
			qs, err := src.Fetch(ctx, l.Symbols)
			answers <- answer{src, qs, err}
		}()
	}
	for range asked {
		a := <-answers
		l.keep(a.src.Name(), a.quotes, a.err, now)
	}
	l.remember(now)
}

// keep stores one source's answer.
func (l *Live) keep(name string, qs map[string]Quote, err error, now time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.quotes == nil {
		l.quotes, l.wait = map[string]map[string]Quote{}, map[string]time.Time{}
	}
	for sym, q := range qs {
		if q.At.IsZero() || q.At.After(now) {
			q.At = now // no time of its own, or a clock ahead of ours: when we fetched it
		}
		if l.quotes[sym] == nil {
			l.quotes[sym] = map[string]Quote{}
		}
		l.quotes[sym][name] = q
	}
	var retry *RetryError
	if errors.As(err, &retry) {
		l.wait[name] = now.Add(retry.After)
	}
	if err != nil {
		l.log().Warn("rates source failed", "source", name, "priced", len(qs), "error", err.Error())
	}
}

func (l *Live) now() time.Time {
	if l.Now != nil {
		return l.Now()
	}
	return time.Now()
}

func (l *Live) log() *slog.Logger {
	if l.Log != nil {
		return l.Log
	}
	return slog.Default()
}

func (l *Live) maxAge() time.Duration {
	if l.MaxAge > 0 {
		return l.MaxAge
	}
	return DefaultMaxAge
}
