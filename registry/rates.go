package registry

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"math/big"
	"os"
	"strings"
	"time"

	"github.com/kassapay/kassa"
)

//go:embed rates.json
var defaultRates []byte

// maxPriceLen bounds the text of one price in a rate table.
const maxPriceLen = 64

// Static is a kassa.RateSource backed by a fixed table of US dollar prices keyed by
// token symbol, or by "network:symbol" for one network's token (the dev chain's
// ETH has a fixed dev rate of its own). A stablecoin (kassa.Token.Stable) missing from the table is priced at
// exactly 1 USD; any other token missing from it has no rate. Every rate carries the
// time the table was loaded as its UpdatedAt, since that is when its prices were
// last true. It is meant for devnet, and is safe for concurrent use.
type Static struct {
	prices    map[string]*big.Rat
	updatedAt time.Time
}

var _ kassa.RateSource = (*Static)(nil)

// NewStatic builds a Static source from prices (symbol → USD per whole token, as a
// plain decimal string such as "600.00", read exactly, never through a float).
// updatedAt is when the table was loaded; pass time.Now() unless testing. Prices
// must be positive; symbols are matched exactly, case included.
func NewStatic(prices map[string]string, updatedAt time.Time) (*Static, error) {
	s := &Static{prices: make(map[string]*big.Rat, len(prices)), updatedAt: updatedAt}
	for sym, text := range prices {
		if strings.TrimSpace(sym) == "" {
			return nil, fmt.Errorf("rates: empty symbol")
		}
		p, err := parsePrice(text)
		if err != nil {
			return nil, fmt.Errorf("rates: %q: %w", sym, err)
		}
		s.prices[sym] = p
	}
	return s, nil
}

// LoadStatic returns the embedded default devnet table (tBNB, BNB, SepoliaETH and
// ETH) when path is "", and otherwise the table in the JSON file at path, which
// replaces the default. The file is one object of symbol → price string:
//
//	{"tBNB": "600.00", "SepoliaETH": "3000.00"}
func LoadStatic(path string, updatedAt time.Time) (*Static, error) {
	data := defaultRates
	if path != "" {
		var err error
		if data, err = os.ReadFile(path); err != nil {
			return nil, fmt.Errorf("rates: %w", err)
		}
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	var prices map[string]string
	if err := dec.Decode(&prices); err != nil {
		return nil, fmt.Errorf("rates: %s: malformed JSON: %w", orDefault(path), err)
	}
	if dec.More() {
		return nil, fmt.Errorf("rates: %s: malformed JSON: data after the top-level object", orDefault(path))
	}
	s, err := NewStatic(prices, updatedAt)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", orDefault(path), err)
	}
	return s, nil
}

func orDefault(path string) string {
	if path == "" {
		return "embedded rates.json"
	}
	return path
}

// Rate returns the price of t in US dollars. A token with neither a table entry nor
// the stable flag gives a KindConflict error with code rate_unavailable. The
// returned rational is a fresh copy the caller may modify.
func (s *Static) Rate(_ context.Context, t kassa.Token) (kassa.Rate, error) {
	p, ok := s.prices[t.Network+":"+t.Symbol]
	if !ok {
		p, ok = s.prices[t.Symbol]
	}
	if ok {
		return kassa.Rate{USDPerToken: new(big.Rat).Set(p), UpdatedAt: s.updatedAt}, nil
	}
	if t.Stable {
		return kassa.Rate{USDPerToken: big.NewRat(1, 1), UpdatedAt: s.updatedAt}, nil
	}
	return kassa.Rate{}, kassa.Errorf(kassa.KindConflict, "rate_unavailable",
		"No rate is available for %s on %s.", t.Symbol, t.Network)
}

// Pinned returns the rate of t's network-scoped entry ("devchain:ETH"), if the
// table has one: a fixed rate that live sources do not override (dev chain ETH
// is not the market's ETH).
func (s *Static) Pinned(t kassa.Token) (kassa.Rate, bool) {
	p, ok := s.prices[t.Network+":"+t.Symbol]
	if !ok {
		return kassa.Rate{}, false
	}
	return kassa.Rate{USDPerToken: new(big.Rat).Set(p), UpdatedAt: s.updatedAt}, true
}

// UpdatedAt returns when the table was loaded.
func (s *Static) UpdatedAt() time.Time { return s.updatedAt }

// parsePrice reads a positive plain decimal ("600", "0.25") exactly.
func parsePrice(text string) (*big.Rat, error) {
	whole, frac, hasPoint := strings.Cut(text, ".")
	if len(text) > maxPriceLen || !kassa.AllDigits(whole) || (hasPoint && !kassa.AllDigits(frac)) {
		return nil, fmt.Errorf("price %q must be a plain decimal such as 600.00", text)
	}
	p, ok := new(big.Rat).SetString(text)
	if !ok || p.Sign() <= 0 {
		return nil, fmt.Errorf("price %q must be a positive decimal", text)
	}
	return p, nil
}
