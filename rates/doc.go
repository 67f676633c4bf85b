// Package rates prices tokens in US dollars from live public sources (Coinbase,
// Kraken, CoinGecko) over HTTP: each source is asked every minute, the median of
// the fresh answers is the rate, a rate older than ten minutes is unavailable,
// and stablecoins stay at exactly 1 USD unless the sources put them more than
// 2 % off the peg (decisions.md, "Chains", Rates). Prices are read from their
// decimal text into exact rationals, never through a float.
package rates
