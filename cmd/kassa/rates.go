package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/rates"
	"github.com/kassapay/kassa/registry"
)

// rateFlags are serve's flags for token prices (decisions.md, "Chains", Rates).
type rateFlags struct {
	file   string // the static table replacing the built-in one
	source string // static, or live sources by comma
	url    string // a live source's base URL, or NAME=URL pairs
}

func (r *rateFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&r.file, "rates-file", envOr("KASSA_RATES_FILE", ""), "JSON file of USD prices by token symbol replacing the built-in table (env KASSA_RATES_FILE)")
	fs.StringVar(&r.source, "rates-source", envOr("KASSA_RATES_SOURCE", "static"), "where USD prices come from: static (the table) or live sources by comma, of coinbase, kraken, coingecko (median) (env KASSA_RATES_SOURCE)")
	fs.StringVar(&r.url, "rates-url", envOr("KASSA_RATES_URL", ""), "base URL of the live source, or NAME=URL,... for several (env KASSA_RATES_URL)")
}

// firstFetch bounds how long serve waits for the live sources' first answer.
const firstFetch = 5 * time.Second

// loadRates builds the rate source: the static table alone, or live sources over
// it (the table then prices what no source covers, and its network-scoped
// entries, such as the dev chain's ETH, stay fixed). For live sources it asks
// them once, waiting at most firstFetch, and returns the refresh loop to run.
func loadRates(ctx context.Context, f rateFlags, reg kassa.Registry, log *slog.Logger) (kassa.RateSource, func(context.Context), error) {
	table, err := registry.LoadStatic(f.file, time.Now())
	if err != nil {
		return nil, nil, err
	}
	names := splitList(f.source)
	if len(names) == 0 || (len(names) == 1 && names[0] == "static") {
		if f.url != "" {
			return nil, nil, fmt.Errorf("--rates-url needs a live --rates-source (%s)", strings.Join(rates.Names, ", "))
		}
		return table, nil, nil
	}
	urls, err := rateURLs(names, f.url)
	if err != nil {
		return nil, nil, err
	}
	live := &rates.Live{Static: table, Pinned: table.Pinned, Symbols: symbols(reg), Log: log}
	for _, name := range names {
		if name == "static" {
			return nil, nil, fmt.Errorf("--rates-source: static cannot be combined with live sources")
		}
		src, err := rates.New(name, urls[name], nil)
		if err != nil {
			return nil, nil, fmt.Errorf("--rates-source: %w", err)
		}
		live.Sources = append(live.Sources, src)
	}
	first, cancel := context.WithTimeout(ctx, firstFetch)
	defer cancel()
	live.Refresh(first)
	log.Info("live rates", "sources", strings.Join(names, ","), "every", rates.DefaultEvery)
	return live, func(ctx context.Context) { live.Run(ctx, rates.DefaultEvery) }, nil
}

// rateURLs reads --rates-url: one URL for the only source, or NAME=URL pairs.
func rateURLs(names []string, v string) (map[string]string, error) {
	out := map[string]string{}
	for _, part := range splitList(v) {
		name, u, ok := strings.Cut(part, "=")
		if !ok || !slices.Contains(rates.Names, name) {
			if len(names) != 1 {
				return nil, fmt.Errorf("--rates-url: with several sources, give NAME=URL for each (got %q)", part)
			}
			name, u = names[0], part
		}
		if !slices.Contains(names, name) {
			return nil, fmt.Errorf("--rates-url: %s is not among --rates-source %s", name, strings.Join(names, ","))
		}
		if !strings.HasPrefix(u, "http://") && !strings.HasPrefix(u, "https://") {
			return nil, fmt.Errorf("--rates-url: %q is not an http(s) URL", u)
		}
		out[name] = u
	}
	return out, nil
}

// symbols lists every token symbol of the registry once.
func symbols(reg kassa.Registry) []string {
	var out []string
	for _, env := range []kassa.Environment{kassa.Devnet, kassa.Mainnet} {
		for _, t := range reg.Tokens(env) {
			if !slices.Contains(out, t.Symbol) {
				out = append(out, t.Symbol)
			}
		}
	}
	return out
}

// splitList splits a comma-separated flag value, trimming and dropping blanks.
func splitList(v string) []string {
	var out []string
	for _, s := range strings.Split(v, ",") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}
