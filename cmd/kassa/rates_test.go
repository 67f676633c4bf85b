package main

import (
	"encoding/json"
	"math/big"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/kassapay/kassa/store"
)

func TestRateURLs(t *testing.T) {
	tests := []struct {
		names   []string
		url     string
		want    map[string]string
		wantErr string
	}{
		{[]string{"coinbase"}, "", map[string]string{}, ""},
		{[]string{"coinbase"}, "http://127.0.0.1:9", map[string]string{"coinbase": "http://127.0.0.1:9"}, ""},
		{[]string{"kraken", "coingecko"}, "kraken=http://k, coingecko=https://g",
			map[string]string{"kraken": "http://k", "coingecko": "https://g"}, ""},
		{[]string{"kraken", "coingecko"}, "http://k", nil, "NAME=URL"},
		{[]string{"kraken"}, "coinbase=http://c", nil, "not among"},
		{[]string{"kraken"}, "ftp://k", nil, "not an http"},
	}
	for _, tt := range tests {
		got, err := rateURLs(tt.names, tt.url)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("rateURLs(%v, %q) error %v, want %q", tt.names, tt.url, err, tt.wantErr)
			}
			continue
		}
		if err != nil || len(got) != len(tt.want) {
			t.Errorf("rateURLs(%v, %q) = %v, %v; want %v", tt.names, tt.url, got, err, tt.want)
		}
		for k, v := range tt.want {
			if got[k] != v {
				t.Errorf("rateURLs(%v, %q)[%s] = %q, want %q", tt.names, tt.url, k, got[k], v)
			}
		}
	}
}

func TestServeRejectsBadRateFlags(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"--rates-source", "binance"}, "unknown rates source"},
		{[]string{"--rates-source", "static,coinbase"}, "cannot be combined"},
		{[]string{"--rates-url", "http://x"}, "needs a live --rates-source"},
	}
	for _, tt := range tests {
		out := runKassaFails(t, append([]string{"serve", "--addr", "127.0.0.1:0", "--data-dir", t.TempDir()}, tt.args...)...)
		if !strings.Contains(out, tt.want) {
			t.Errorf("serve %v said %q, want %q", tt.args, out, tt.want)
		}
	}
}

// TestLiveRatesEndToEnd: serve --dev with a live source (a loopback Coinbase).
// The dev chain's ETH keeps its dev rate, testnet coins the table's, a stablecoin
// the sources put off its peg is unavailable with the reason, and one on its peg
// is 1:1 with the time it was checked.
func TestLiveRatesEndToEnd(t *testing.T) {
	coinbase := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		prices := map[string]string{"ETH": "3100.55", "USDT": "0.9500", "USDC": "1.0010"}
		sym := strings.TrimSuffix(strings.TrimPrefix(r.URL.Path, "/v2/prices/"), "-USD/spot")
		p, ok := prices[sym]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"data":{"amount":"` + p + `","base":"` + sym + `","currency":"USD"}}`))
	}))
	defer coinbase.Close()
	started := time.Now()
	k := startKassa(t, store.Config{DataDir: t.TempDir()}, "--rates-source", "coinbase", "--rates-url", coinbase.URL)
	payURL, _ := pageInvoice(t, k, map[string]any{"amount_usd": 10})
	var tokens []struct {
		Network string      `json:"network"`
		Symbol  string      `json:"token_symbol"`
		Rate    json.Number `json:"settlement_rate"`
		Status  string      `json:"availability_status"`
		Updated *string     `json:"rate_updated_at"`
		Reason  *string     `json:"unavailable_reason"`
	}
	availableTokens(t, payURL, &tokens)
	seen := 0
	for _, tok := range tokens {
		switch tok.Network + ":" + tok.Symbol {
		case "devchain:ETH":
			seen++
			if tok.Status != "AVAILABLE" || !sameNumber(tok.Rate, "2000") {
				t.Errorf("devchain ETH: %s at %s, want the dev rate 2000", tok.Status, tok.Rate)
			}
		case "bsc-testnet:tBNB":
			seen++
			if tok.Status != "AVAILABLE" || !sameNumber(tok.Rate, "600") {
				t.Errorf("tBNB: %s at %s, want the table's 600", tok.Status, tok.Rate)
			}
		case "devchain:USDT":
			seen++
			if tok.Status != "UNAVAILABLE" || tok.Reason == nil || !strings.Contains(*tok.Reason, "off its peg") {
				t.Errorf("USDT at 0.95: %s, reason %v", tok.Status, tok.Reason)
			}
		case "devchain:USDC":
			seen++
			if tok.Status != "AVAILABLE" || !sameNumber(tok.Rate, "1") || tok.Updated == nil {
				t.Fatalf("USDC at 1.001: %s at %s", tok.Status, tok.Rate)
			}
			at, err := time.Parse(time.RFC3339, *tok.Updated)
			if err != nil || at.Before(started.Add(-time.Second)) || at.After(time.Now()) {
				t.Errorf("USDC rate_updated_at %s, want when the source was asked (after %s)", *tok.Updated, started)
			}
		}
	}
	if seen != 4 {
		t.Fatalf("saw %d of the 4 tokens checked in %+v", seen, tokens)
	}
}

// runKassaFails runs the binary, which must exit with an error, and returns what it printed.
func runKassaFails(t *testing.T, args ...string) string {
	t.Helper()
	out, err := exec.Command(kassaBin, args...).CombinedOutput()
	if err == nil {
		t.Fatalf("kassa %s succeeded:\n%s", strings.Join(args, " "), out)
	}
	return string(out)
}

// sameNumber reports whether the JSON number n is want, exactly.
func sameNumber(n json.Number, want string) bool {
	a, ok1 := new(big.Rat).SetString(n.String())
	b, ok2 := new(big.Rat).SetString(want)
	return ok1 && ok2 && a.Cmp(b) == 0
}
