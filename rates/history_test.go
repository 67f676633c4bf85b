package rates

import (
	"context"
	"testing"
	"time"

	"github.com/kassapay/kassa"
)

// wantAt checks the rate of tok at time at; price "" means rate_unavailable.
func wantAt(t *testing.T, l *Live, tok kassa.Token, at time.Time, price string) {
	t.Helper()
	r, err := l.RateAt(context.Background(), tok, at)
	if price == "" {
		if kassa.AsError(err).Code != "rate_unavailable" {
			t.Fatalf("%s at %v: rate %v, error %v; want rate_unavailable", tok.Symbol, at, r.USDPerToken, err)
		}
		return
	}
	if err != nil {
		t.Fatalf("%s at %v: %v", tok.Symbol, at, err)
	}
	if r.USDPerToken.Cmp(rat(price)) != 0 {
		t.Fatalf("%s at %v = %s, want %s", tok.Symbol, at, r.USDPerToken.FloatString(6), price)
	}
}

// TestLiveRateAt: a rate asked for a past time is the one the sources gave at
// the last refresh before it, while the history reaches back; pinned and table
// rates do not move; a stablecoin keeps its peg in the past as now.
func TestLiveRateAt(t *testing.T) {
	c := &clock{t0}
	m := newMarket(map[string]string{"ETH": "2000", "USDT": "1.001"})
	l := newLive(t, c, m)
	l.Refresh(context.Background()) // t0: 2000
	c.add(time.Minute)
	m.set("ETH", "1500")
	m.set("USDT", "0.95")
	l.Refresh(context.Background()) // t0+1m: 1500, USDT off its peg
	c.add(time.Minute)
	m.set("ETH", "200")
	m.set("USDT", "0.999")
	l.Refresh(context.Background()) // t0+2m: 200
	c.add(20 * time.Second)

	for _, tc := range []struct {
		name  string
		tok   kassa.Token
		at    time.Time
		price string
	}{
		{"at the first refresh", eth, t0, "2000"},
		{"between the first and second", eth, t0.Add(59 * time.Second), "2000"},
		{"at the second", eth, t0.Add(time.Minute), "1500"},
		{"after the last refresh: now", eth, t0.Add(2*time.Minute + 10*time.Second), "200"},
		{"before the history: now", eth, t0.Add(-time.Hour), "200"},
		{"stablecoin in its peg", usdt, t0.Add(30 * time.Second), "1"},
		{"stablecoin off its peg then", usdt, t0.Add(90 * time.Second), ""},
		{"pinned", devETH, t0, "2000"},
		{"table", sepolia, t0, "7"},
	} {
		t.Run(tc.name, func(t *testing.T) { wantAt(t, l, tc.tok, tc.at, tc.price) })
	}

	// The history is kept HistoryKeep: a day later the first points are gone
	// and that time is priced as now.
	c.add(HistoryKeep)
	m.set("ETH", "300")
	l.Refresh(context.Background())
	wantAt(t, l, eth, t0.Add(30*time.Second), "300")
	if n := len(l.history["ETH"]); n != 1 {
		t.Fatalf("%d ETH points kept after a day, want 1", n)
	}
}
