package rates

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"
)

// CoinGecko asks CoinGecko's public simple price of every covered token in one
// request:
//
//	GET /api/v3/simple/price?ids=ethereum,tether&vs_currencies=usd&include_last_updated_at=true
//	→ {"ethereum":{"usd":3000.12,"last_updated_at":1700000000},…}
//
// Prices are JSON numbers, read from their text; last_updated_at is the quote's time.
type CoinGecko struct{ api }

// coingeckoIDs maps a token to CoinGecko's coin id.
var coingeckoIDs = map[string]string{"ETH": "ethereum", "BNB": "binancecoin", "USDT": "tether", "USDC": "usd-coin"}

// Covers reports whether CoinGecko prices symbol.
func (c *CoinGecko) Covers(symbol string) bool { return coingeckoIDs[symbol] != "" }

// Fetch asks the price of every covered symbol.
func (c *CoinGecko) Fetch(ctx context.Context, symbols []string) (map[string]Quote, error) {
	bySymbol := map[string]string{}
	var ids []string
	for _, sym := range symbols {
		if id := coingeckoIDs[sym]; id != "" {
			bySymbol[sym] = id
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		return map[string]Quote{}, nil
	}
	sort.Strings(ids)
	var body map[string]struct {
		USD     json.Number `json:"usd"`
		Updated json.Number `json:"last_updated_at"`
	}
	path := "/api/v3/simple/price?ids=" + strings.Join(ids, ",") + "&vs_currencies=usd&include_last_updated_at=true"
	if err := c.get(ctx, path, &body); err != nil {
		return nil, err
	}
	out := map[string]Quote{}
	var errs []error
	for sym, id := range bySymbol {
		v, ok := body[id]
		if !ok || v.USD == "" {
			errs = append(errs, fmt.Errorf("coingecko: no price for %s", id))
			continue
		}
		p, err := parsePrice(v.USD.String())
		if err != nil {
			errs = append(errs, fmt.Errorf("coingecko: %s: %w", id, err))
			continue
		}
		q := Quote{USD: p}
		if secs, err := v.Updated.Int64(); err == nil && secs > 0 {
			q.At = time.Unix(secs, 0).UTC()
		}
		out[sym] = q
	}
	return out, errors.Join(errs...)
}
