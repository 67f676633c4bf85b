package rates

import (
	"context"
	"errors"
	"fmt"
	"net/url"
)

// Coinbase asks Coinbase's public spot price of each token, one request a token:
//
//	GET /v2/prices/ETH-USD/spot → {"data":{"amount":"3000.12","base":"ETH","currency":"USD"}}
type Coinbase struct{ api }

// coinbaseSymbols are the tokens Coinbase lists against the dollar.
var coinbaseSymbols = map[string]bool{"ETH": true, "USDT": true, "USDC": true, "BNB": true}

// Covers reports whether Coinbase prices symbol.
func (c *Coinbase) Covers(symbol string) bool { return coinbaseSymbols[symbol] }

// Fetch asks the spot price of each covered symbol; a pair Coinbase does not
// list (404) is left out quietly, and a 429 stops the round.
func (c *Coinbase) Fetch(ctx context.Context, symbols []string) (map[string]Quote, error) {
	out := map[string]Quote{}
	var errs []error
	for _, sym := range symbols {
		if !c.Covers(sym) {
			continue
		}
		var body struct {
			Data struct {
				Amount   string `json:"amount"`
				Base     string `json:"base"`
				Currency string `json:"currency"`
			} `json:"data"`
		}
		err := c.get(ctx, "/v2/prices/"+url.PathEscape(sym+"-USD")+"/spot", &body)
		var retry *RetryError
		if errors.As(err, &retry) {
			return out, err
		}
		if errors.Is(err, errNotFound) {
			continue // Coinbase does not list this pair (BNB, at times): not an error each minute
		}
		if err == nil && (body.Data.Base != sym || body.Data.Currency != "USD") {
			err = fmt.Errorf("coinbase: asked %s-USD, answered %s-%s", sym, body.Data.Base, body.Data.Currency)
		}
		if err == nil {
			q, perr := parsePrice(body.Data.Amount)
			if perr == nil {
				out[sym] = Quote{USD: q}
				continue
			}
			err = fmt.Errorf("coinbase: %s: %w", sym, perr)
		}
		errs = append(errs, err)
	}
	return out, errors.Join(errs...)
}
