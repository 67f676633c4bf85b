package rates

import (
	"context"
	"io"
	"log/slog"
	"math/big"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kassapay/kassa"
)

// market is a loopback Coinbase whose spot prices a test sets, counting requests.
type market struct {
	mu     sync.Mutex
	prices map[string]string // symbol → amount; missing: 404
	status int               // non-zero: answer every request with it
	asked  int
}

func (m *market) set(sym, price string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if price == "" {
		delete(m.prices, sym)
		return
	}
	m.prices[sym] = price
}

func (m *market) source(t *testing.T, name string) Source {
	t.Helper()
	answers := map[string]func(http.ResponseWriter){}
	for _, sym := range []string{"ETH", "USDT", "USDC", "BNB"} {
		answers["/v2/prices/"+sym+"-USD/spot"] = func(w http.ResponseWriter) {
			m.mu.Lock()
			defer m.mu.Unlock()
			m.asked++
			if m.status != 0 {
				body(m.status, `{}`, "Retry-After: 60")(w)
				return
			}
			p, ok := m.prices[sym]
			if !ok {
				body(404, `{"errors":[{"id":"not_found"}]}`)(w)
				return
			}
			body(200, `{"data":{"amount":"`+p+`","base":"`+sym+`","currency":"USD"}}`)(w)
		}
	}
	src, err := New("coinbase", upstream(t, answers).URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	return named{src, name}
}

// named gives a source another name, so several loopback Coinbases make a median.
type named struct {
	Source
	name string
}

func (n named) Name() string { return n.name }

// staticRates prices every token at 7 USD, stablecoins at 1, as a fallback table.
type staticRates struct{ at time.Time }

func (s staticRates) Rate(_ context.Context, t kassa.Token) (kassa.Rate, error) {
	if t.Stable {
		return kassa.Rate{USDPerToken: big.NewRat(1, 1), UpdatedAt: s.at}, nil
	}
	return kassa.Rate{USDPerToken: big.NewRat(7, 1), UpdatedAt: s.at}, nil
}

type clock struct{ t time.Time }

func (c *clock) now() time.Time             { return c.t }
func (c *clock) add(d time.Duration)        { c.t = c.t.Add(d) }
func newMarket(p map[string]string) *market { return &market{prices: p} }

var (
	t0      = time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	loaded  = t0.Add(-time.Hour)
	eth     = kassa.Token{Network: "ethereum", Symbol: "ETH"}
	devETH  = kassa.Token{Network: "devchain", Symbol: "ETH"}
	usdt    = kassa.Token{Network: "ethereum", Symbol: "USDT", Stable: true}
	sepolia = kassa.Token{Network: "ethereum-sepolia", Symbol: "SepoliaETH"}
)

func newLive(t *testing.T, c *clock, markets ...*market) *Live {
	t.Helper()
	l := &Live{Symbols: []string{"ETH", "USDT", "SepoliaETH"}, Static: staticRates{loaded}, Now: c.now,
		Log: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Pinned: func(tok kassa.Token) (kassa.Rate, bool) {
			if tok.Network == "devchain" && tok.Symbol == "ETH" {
				return kassa.Rate{USDPerToken: big.NewRat(2000, 1), UpdatedAt: loaded}, true
			}
			return kassa.Rate{}, false
		}}
	for i, m := range markets {
		l.Sources = append(l.Sources, m.source(t, string(rune('a'+i))))
	}
	return l
}

// want checks the rate of tok: price "" means rate_unavailable with reason in the message.
func want(t *testing.T, l *Live, tok kassa.Token, price string, at time.Time, reason string) {
	t.Helper()
	r, err := l.Rate(context.Background(), tok)
	if price == "" {
		e := kassa.AsError(err)
		if err == nil || e.Code != "rate_unavailable" || !strings.Contains(e.Message, reason) {
			t.Fatalf("%s: rate %v, error %v; want rate_unavailable with %q", tok.Symbol, r.USDPerToken, err, reason)
		}
		return
	}
	if err != nil {
		t.Fatalf("%s: %v", tok.Symbol, err)
	}
	if r.USDPerToken.Cmp(rat(price)) != 0 || !r.UpdatedAt.Equal(at) {
		t.Fatalf("%s = %s at %v, want %s at %v", tok.Symbol, r.USDPerToken.FloatString(6), r.UpdatedAt, price, at)
	}
}

func TestLiveMedianOutliersAndDisagreement(t *testing.T) {
	c := &clock{t0}
	a, b, d := newMarket(map[string]string{"ETH": "3000"}), newMarket(map[string]string{"ETH": "3010"}), newMarket(map[string]string{"ETH": "3004"})
	l := newLive(t, c, a, b, d)
	l.Refresh(context.Background())
	want(t, l, eth, "3004", t0, "")

	d.set("ETH", "3.004") // a unit mix-up: left out, the median of the other two
	c.add(time.Minute)
	l.Refresh(context.Background())
	want(t, l, eth, "3005", c.t, "")

	l = newLive(t, c, a, d) // two sources far apart: neither can be trusted
	l.Refresh(context.Background())
	want(t, l, eth, "", time.Time{}, "disagree")
}

func TestLiveStalenessAndRetryAfter(t *testing.T) {
	c := &clock{t0}
	m := newMarket(map[string]string{"ETH": "3000.50"})
	l := newLive(t, c, m)
	want(t, l, eth, "", time.Time{}, "No ETH rate has been fetched")
	l.Refresh(context.Background())
	want(t, l, eth, "3000.5", t0, "")

	m.status = http.StatusTooManyRequests // Retry-After: 60
	c.add(30 * time.Second)
	l.Refresh(context.Background())
	asked := m.asked
	c.add(20 * time.Second)
	l.Refresh(context.Background()) // still waiting out the 429: not asked
	if m.asked != asked {
		t.Fatalf("asked during Retry-After: %d, then %d", asked, m.asked)
	}
	want(t, l, eth, "3000.5", t0, "") // the last good price, with its own time

	c.add(10 * time.Minute) // nothing new for over 10 minutes
	l.Refresh(context.Background())
	want(t, l, eth, "", time.Time{}, "stale: last updated 2026-11-24T12:00:00.000Z, more than 10 minutes ago")

	m.status = 0
	m.set("ETH", "2999")
	c.add(time.Minute)
	l.Refresh(context.Background())
	want(t, l, eth, "2999", c.t, "")
}

func TestLivePegPinnedAndUncovered(t *testing.T) {
	c := &clock{t0}
	m := newMarket(map[string]string{"ETH": "3000", "USDT": "0.9990"})
	l := newLive(t, c, m)
	want(t, l, usdt, "1", loaded, "") // not asked yet: the peg holds, as the table says
	l.Refresh(context.Background())
	want(t, l, usdt, "1", t0, "") // 0.1 % off: 1:1, checked now
	want(t, l, devETH, "2000", loaded, "")
	want(t, l, sepolia, "7", loaded, "") // no source prices testnet coins: the table

	m.set("USDT", "0.9700")
	c.add(time.Minute)
	l.Refresh(context.Background())
	want(t, l, usdt, "", time.Time{}, "USDT is off its peg: the rate sources price it at 0.9700 USD")
	m.set("USDT", "1.0199")
	c.add(time.Minute)
	l.Refresh(context.Background())
	want(t, l, usdt, "1", c.t, "")
	m.set("USDT", "")
	c.add(11 * time.Minute)
	l.Refresh(context.Background())
	want(t, l, usdt, "1", loaded, "") // no fresh quote says otherwise
}

func TestLiveRun(t *testing.T) {
	m := newMarket(map[string]string{"ETH": "3000"})
	l := newLive(t, &clock{t0}, m)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { l.Run(ctx, time.Millisecond); close(done) }()
	for {
		if _, err := l.Rate(ctx, eth); err == nil {
			break
		}
		time.Sleep(time.Millisecond)
	}
	cancel()
	<-done
}
