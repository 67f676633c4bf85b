package rates

import (
	"context"
	"sort"
	"time"

	"github.com/kassapay/kassa"
)

// HistoryKeep is how long Live remembers the rates it gave, for RateAt: the
// longest a chain watcher may lag behind its chain (an outage, a node down) and
// still value a transfer made after its quote ran out at its block's time.
const HistoryKeep = 24 * time.Hour

var _ kassa.RateHistory = (*Live)(nil)

// RateAt prices t as Live did at time at: from the point taken at the last
// refresh at or before at. A time after the last refresh, or before the first
// one remembered (a restart forgets them; they are kept HistoryKeep), is priced
// as now. Pinned and Static rates do not move.
func (l *Live) RateAt(ctx context.Context, t kassa.Token, at time.Time) (kassa.Rate, error) {
	if r, ok, err := l.fixed(ctx, t); ok {
		return r, err
	}
	if p, ok := l.pointAt(t.Symbol, at); ok {
		return l.judge(ctx, t, p)
	}
	return l.judge(ctx, t, l.pointNow(t.Symbol))
}

// remember takes every asked symbol's point after a refresh at now, and forgets
// those older than HistoryKeep.
func (l *Live) remember(now time.Time) {
	points := make(map[string]point, len(l.Symbols))
	for _, sym := range l.Symbols {
		if l.covered(sym) {
			points[sym] = l.pointNow(sym)
		}
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.history == nil {
		l.history = map[string][]point{}
	}
	cutoff := now.Add(-HistoryKeep)
	for sym, p := range points {
		p.at = now
		h := l.history[sym]
		drop := sort.Search(len(h), func(i int) bool { return !h[i].at.Before(cutoff) })
		l.history[sym] = append(h[drop:], p)
	}
}

// pointAt returns symbol's last remembered point taken at or before at, when a
// later one was taken too (so at is in the past of the history).
func (l *Live) pointAt(symbol string, at time.Time) (point, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	h := l.history[symbol]
	i := sort.Search(len(h), func(i int) bool { return h[i].at.After(at) }) // the first point after at
	if i == 0 || i == len(h) {
		return point{}, false
	}
	return h[i-1], true
}
