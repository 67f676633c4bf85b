package rates

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"
)

// Kraken asks Kraken's public ticker for every covered token in one request:
//
//	GET /0/public/Ticker?pair=XETHZUSD,USDTZUSD → {"error":[],"result":{"XETHZUSD":{"c":["3000.10","0.5"],…}}}
//
// The price is the last trade ("c"). Kraken names pairs its own way, and one
// unknown pair fails the whole request, so only the pairs below are asked.
type Kraken struct{ api }

// krakenPairs maps a token to Kraken's name of its dollar pair.
var krakenPairs = map[string]string{"ETH": "XETHZUSD", "USDT": "USDTZUSD", "USDC": "USDCUSD"}

// Covers reports whether Kraken prices symbol.
func (k *Kraken) Covers(symbol string) bool { return krakenPairs[symbol] != "" }

// Fetch asks the ticker of every covered symbol.
func (k *Kraken) Fetch(ctx context.Context, symbols []string) (map[string]Quote, error) {
	bySymbol := map[string]string{}
	var pairs []string
	for _, sym := range symbols {
		if pair := krakenPairs[sym]; pair != "" {
			bySymbol[sym] = pair
			pairs = append(pairs, pair)
		}
	}
	if len(pairs) == 0 {
		return map[string]Quote{}, nil
	}
	sort.Strings(pairs)
	var body struct {
		Error  []string `json:"error"`
		Result map[string]struct {
			C []string `json:"c"`
		} `json:"result"`
	}
	if err := k.get(ctx, "/0/public/Ticker?pair="+strings.Join(pairs, ","), &body); err != nil {
		return nil, err
	}
	if len(body.Error) > 0 {
		msg := strings.Join(body.Error, "; ")
		if strings.Contains(msg, "Rate limit") || strings.Contains(msg, "Too many requests") {
			// Kraken says it is rate limited in a 200 answer, not with a 429.
			return nil, &RetryError{Source: "kraken", After: time.Minute}
		}
		return nil, fmt.Errorf("kraken: %s", msg)
	}
	out := map[string]Quote{}
	var errs []error
	for sym, pair := range bySymbol {
		t, ok := body.Result[pair]
		if !ok || len(t.C) == 0 {
			errs = append(errs, fmt.Errorf("kraken: no ticker for %s", pair))
			continue
		}
		p, err := parsePrice(t.C[0])
		if err != nil {
			errs = append(errs, fmt.Errorf("kraken: %s: %w", pair, err))
			continue
		}
		out[sym] = Quote{USD: p}
	}
	return out, errors.Join(errs...)
}
