package registry

import (
	"context"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/kassapay/kassa"
)

// rateOf asks s for the rate of tok and fails the test on an error.
func rateOf(t *testing.T, s *Static, tok kassa.Token) kassa.Rate {
	t.Helper()
	r, err := s.Rate(context.Background(), tok)
	if err != nil {
		t.Fatalf("Rate(%s): %v", tok.Symbol, err)
	}
	return r
}

func TestDefaultRatesPriceEveryDefaultToken(t *testing.T) {
	loaded := time.Date(2025, 3, 1, 0, 0, 0, 0, time.UTC)
	s, err := LoadStatic("", loaded)
	if err != nil {
		t.Fatal(err)
	}
	reg := Default()
	for _, env := range []kassa.Environment{kassa.Devnet, kassa.Mainnet} {
		for _, tok := range reg.Tokens(env) {
			r := rateOf(t, s, tok)
			if r.USDPerToken.Sign() <= 0 || !r.UpdatedAt.Equal(loaded) {
				t.Errorf("%s %s: rate %v", env, tok.Symbol, r)
			}
			if tok.Stable && r.USDPerToken.Cmp(big.NewRat(1, 1)) != 0 {
				t.Errorf("%s %s: stablecoin at %s", env, tok.Symbol, r.USDPerToken)
			}
		}
	}
	if got := rateOf(t, s, kassa.Token{Symbol: "tBNB"}).USDPerToken; got.Cmp(big.NewRat(600, 1)) != 0 {
		t.Errorf("tBNB = %s, want 600", got)
	}
	if s.UpdatedAt() != loaded {
		t.Errorf("UpdatedAt = %v", s.UpdatedAt())
	}
}

func TestStaticRate(t *testing.T) {
	s, err := NewStatic(map[string]string{"ETH": "3000.10", "USDX": "0.9990"}, time.Unix(1000, 0))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		tok  kassa.Token
		want *big.Rat // nil: rate_unavailable
	}{
		{kassa.Token{Symbol: "ETH"}, big.NewRat(30001, 10)},
		{kassa.Token{Symbol: "USDX", Stable: true}, big.NewRat(999, 1000)}, // the table wins
		{kassa.Token{Symbol: "USDT", Stable: true}, big.NewRat(1, 1)},
		{kassa.Token{Symbol: "eth"}, nil}, // symbols are case sensitive
		{kassa.Token{Symbol: "BNB", Network: "bsc"}, nil},
	}
	for _, tt := range tests {
		r, err := s.Rate(context.Background(), tt.tok)
		if tt.want == nil {
			if kassa.ErrorKindOf(err) != kassa.KindConflict || kassa.ErrorCode(err) != "rate_unavailable" {
				t.Errorf("%s: error %v, want rate_unavailable", tt.tok.Symbol, err)
			}
			continue
		}
		if err != nil || r.USDPerToken.Cmp(tt.want) != 0 || !r.UpdatedAt.Equal(time.Unix(1000, 0)) {
			t.Errorf("%s: %v, %v; want %s", tt.tok.Symbol, r, err, tt.want)
		}
	}
	r := rateOf(t, s, kassa.Token{Symbol: "ETH"})
	r.USDPerToken.SetInt64(1) // the caller owns its copy
	if again := rateOf(t, s, kassa.Token{Symbol: "ETH"}); again.USDPerToken.Cmp(big.NewRat(30001, 10)) != 0 {
		t.Fatal("a returned rate aliases the table")
	}
}

func TestNewStaticRejects(t *testing.T) {
	for _, price := range []string{"", "abc", "1e3", "-1", "0", "0.00", "1/3", " 1", "0x10", ".5", "5.", "Inf", strings.Repeat("1", 65)} {
		if _, err := NewStatic(map[string]string{"X": price}, time.Now()); err == nil {
			t.Errorf("price %q accepted", price)
		}
	}
	if _, err := NewStatic(map[string]string{"": "1"}, time.Now()); err == nil {
		t.Error("empty symbol accepted")
	}
}

func TestLoadStaticOverride(t *testing.T) {
	s, err := LoadStatic(writeFile(t, []byte(`{"ETH": "2500"}`)), time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if got := rateOf(t, s, kassa.Token{Symbol: "ETH"}).USDPerToken; got.Cmp(big.NewRat(2500, 1)) != 0 {
		t.Errorf("ETH = %s", got)
	}
	if _, err := s.Rate(context.Background(), kassa.Token{Symbol: "tBNB"}); kassa.ErrorCode(err) != "rate_unavailable" {
		t.Errorf("tBNB survived the override: %v", err)
	}
	for _, text := range []string{`{"ETH": 2500}`, `{"ETH": "abc"}`, `[]`, `{"ETH": "1"} {}`} {
		if _, err := LoadStatic(writeFile(t, []byte(text)), time.Now()); err == nil {
			t.Errorf("rates file %s accepted", text)
		}
	}
}

func TestStaticPinned(t *testing.T) {
	s, err := LoadStatic("", time.Unix(1000, 0))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		tok  kassa.Token
		want *big.Rat // nil: not pinned
	}{
		{kassa.Token{Network: "devchain", Symbol: "ETH"}, big.NewRat(2000, 1)},
		{kassa.Token{Network: "ethereum", Symbol: "ETH"}, nil},                // a plain symbol entry is not a pin
		{kassa.Token{Network: "devchain", Symbol: "USDT", Stable: true}, nil}, // nor is the peg
	}
	for _, tt := range tests {
		r, ok := s.Pinned(tt.tok)
		if ok != (tt.want != nil) || (ok && r.USDPerToken.Cmp(tt.want) != 0) {
			t.Errorf("Pinned(%s:%s) = %v, %v; want %v", tt.tok.Network, tt.tok.Symbol, r.USDPerToken, ok, tt.want)
		}
	}
}
