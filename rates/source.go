package rates

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Quote is one source's price of a whole token in US dollars and when the source
// says it was true (zero: when it was fetched).
type Quote struct {
	USD *big.Rat
	At  time.Time
}

// Source is a public price source.
type Source interface {
	// Name is the source's name as --rates-source spells it.
	Name() string
	// Covers reports whether the source can price symbol.
	Covers(symbol string) bool
	// Fetch prices the symbols it covers. A price it cannot read is left out and
	// named in the error, which may come with the quotes it could read; a 429
	// answer is a *RetryError.
	Fetch(ctx context.Context, symbols []string) (map[string]Quote, error)
}

// RetryError is a source's "rate limited" answer (a 429, or Kraken's
// EAPI:Rate limit exceeded in a 200): ask again no sooner than After.
type RetryError struct {
	Source string
	After  time.Duration
}

func (e *RetryError) Error() string {
	return fmt.Sprintf("%s: rate limited, retry after %s", e.Source, e.After)
}

// Default base URLs of the public APIs.
const (
	coinbaseURL  = "https://api.coinbase.com"
	krakenURL    = "https://api.kraken.com"
	coingeckoURL = "https://api.coingecko.com"
)

// Names are the live sources New knows.
var Names = []string{"coinbase", "kraken", "coingecko"}

// New returns the live source called name, asking baseURL ("" for the public
// API) with client (nil: a client with a 10 s timeout).
func New(name, baseURL string, client *http.Client) (Source, error) {
	if client == nil {
		client = &http.Client{Timeout: 10 * time.Second}
	}
	h := api{client: client, base: strings.TrimRight(baseURL, "/"), name: name}
	switch name {
	case "coinbase":
		h.base = or(h.base, coinbaseURL)
		return &Coinbase{h}, nil
	case "kraken":
		h.base = or(h.base, krakenURL)
		return &Kraken{h}, nil
	case "coingecko":
		h.base = or(h.base, coingeckoURL)
		return &CoinGecko{h}, nil
	}
	return nil, fmt.Errorf("unknown rates source %q (want static or one of %s)", name, strings.Join(Names, ", "))
}

func or(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// api is the HTTP side shared by the sources.
type api struct {
	client *http.Client
	base   string
	name   string
}

// Name returns the source's name.
func (a api) Name() string { return a.name }

// errNotFound is a 404: the source does not know what was asked.
var errNotFound = errors.New("not found")

// get fetches base+path and decodes its JSON body into out, numbers kept as text.
func (a api) get(ctx context.Context, path string, out any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, a.base+path, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", "kassa-rates")
	resp, err := a.client.Do(req)
	if err != nil {
		return fmt.Errorf("%s: %w", a.name, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return fmt.Errorf("%s: %w", a.name, err)
	}
	switch {
	case resp.StatusCode == http.StatusTooManyRequests:
		return &RetryError{Source: a.name, After: retryAfter(resp.Header.Get("Retry-After"), time.Now())}
	case resp.StatusCode == http.StatusNotFound:
		return fmt.Errorf("%s: %s: %w", a.name, path, errNotFound)
	case resp.StatusCode != http.StatusOK:
		return fmt.Errorf("%s: %s answered %s: %.200s", a.name, path, resp.Status, body)
	}
	dec := json.NewDecoder(strings.NewReader(string(body)))
	dec.UseNumber()
	if err := dec.Decode(out); err != nil {
		return fmt.Errorf("%s: %s: malformed JSON: %w", a.name, path, err)
	}
	return nil
}

// retryAfter reads a Retry-After header (seconds or an HTTP date); missing or
// unreadable, a minute.
func retryAfter(v string, now time.Time) time.Duration {
	if s, err := strconv.Atoi(strings.TrimSpace(v)); err == nil && s >= 0 {
		return time.Duration(min(s, 3600)) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil {
		return min(max(t.Sub(now), 0), time.Hour)
	}
	return time.Minute
}

// maxPrice bounds a believable price of one token in US dollars.
var maxPrice = big.NewRat(1_000_000_000, 1)

// parsePrice reads a price from its decimal text ("3000.12", "1.2e-05") exactly;
// it must be positive and below a billion dollars.
func parsePrice(text string) (*big.Rat, error) {
	if text == "" || len(text) > 64 || strings.Trim(text, "0123456789.eE+-") != "" {
		return nil, fmt.Errorf("price %q is not a decimal number", text)
	}
	if i := strings.IndexAny(text, "eE"); i >= 0 {
		if exp, err := strconv.Atoi(text[i+1:]); err != nil || exp < -30 || exp > 30 {
			return nil, fmt.Errorf("price %q is not a believable price", text)
		}
	}
	p, ok := new(big.Rat).SetString(text)
	if !ok {
		return nil, fmt.Errorf("price %q is not a decimal number", text)
	}
	if p.Sign() <= 0 || p.Cmp(maxPrice) >= 0 {
		return nil, fmt.Errorf("price %q is not a believable price", text)
	}
	return p, nil
}
