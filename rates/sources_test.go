package rates

import (
	"context"
	"errors"
	"math/big"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// upstream is a loopback server answering paths as a public price API would.
func upstream(t *testing.T, answers map[string]func(w http.ResponseWriter)) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if a, ok := answers[r.URL.RequestURI()]; ok {
			a(w)
			return
		}
		w.WriteHeader(http.StatusNotFound)
		_, _ = w.Write([]byte(`{"errors":[{"id":"not_found","message":"Not found"}]}`))
	}))
	t.Cleanup(srv.Close)
	return srv
}

// body answers status with a JSON body and headers given as "Name: value".
func body(status int, text string, headers ...string) func(http.ResponseWriter) {
	return func(w http.ResponseWriter) {
		for _, h := range headers {
			k, v, _ := strings.Cut(h, ": ")
			w.Header().Set(k, v)
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_, _ = w.Write([]byte(text))
	}
}

func rat(s string) *big.Rat {
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		panic(s)
	}
	return r
}

func TestSources(t *testing.T) {
	const (
		cbETH   = "/v2/prices/ETH-USD/spot"
		cbUSDT  = "/v2/prices/USDT-USD/spot"
		kraken  = "/0/public/Ticker?pair=USDTZUSD,XETHZUSD"
		gecko   = "/api/v3/simple/price?ids=ethereum,tether&vs_currencies=usd&include_last_updated_at=true"
		okKrak  = `{"error":[],"result":{"XETHZUSD":{"a":["3001.1","1","1.0"],"b":["3000.9","2","2.0"],"c":["3001.00000","0.0116"],"v":["1.0","2.0"]},"USDTZUSD":{"c":["1.00020000","10"]}}}`
		okGecko = `{"ethereum":{"usd":3001.37,"last_updated_at":1763900000},"tether":{"usd":0.999912,"last_updated_at":1763900010}}`
	)
	symbols := []string{"ETH", "USDT", "tBNB"}
	tests := []struct {
		name    string
		source  string
		answers map[string]func(http.ResponseWriter)
		want    map[string]string // symbol → price
		wantAt  map[string]int64  // symbol → the quote's own time (unix)
		wantErr string            // "" none; "retry" a *RetryError
	}{
		{name: "coinbase spot", source: "coinbase", answers: map[string]func(http.ResponseWriter){
			cbETH:  body(200, `{"data":{"amount":"3000.125","base":"ETH","currency":"USD"}}`),
			cbUSDT: body(200, `{"data":{"amount":"1.0003","base":"USDT","currency":"USD"}}`)},
			want: map[string]string{"ETH": "3000.125", "USDT": "1.0003"}},
		{name: "coinbase one pair unknown", source: "coinbase", answers: map[string]func(http.ResponseWriter){
			cbETH: body(200, `{"data":{"amount":"3000.125","base":"ETH","currency":"USD"}}`)},
			want: map[string]string{"ETH": "3000.125"}},
		{name: "coinbase nonsense prices", source: "coinbase", answers: map[string]func(http.ResponseWriter){
			cbETH:  body(200, `{"data":{"amount":"-5","base":"ETH","currency":"USD"}}`),
			cbUSDT: body(200, `{"data":{"amount":"NaN","base":"USDT","currency":"USD"}}`)},
			want: map[string]string{}, wantErr: "not a"},
		{name: "coinbase answers another pair", source: "coinbase", answers: map[string]func(http.ResponseWriter){
			cbETH:  body(200, `{"data":{"amount":"95000","base":"BTC","currency":"USD"}}`),
			cbUSDT: body(200, `{"data":{"amount":"1","base":"USDT","currency":"EUR"}}`)},
			want: map[string]string{}, wantErr: "answered"},
		{name: "coinbase 429", source: "coinbase", answers: map[string]func(http.ResponseWriter){
			cbETH: body(429, `{"errors":[{"id":"rate_limit_exceeded"}]}`, "Retry-After: 30")},
			want: map[string]string{}, wantErr: "retry"},
		{name: "coinbase 500", source: "coinbase", answers: map[string]func(http.ResponseWriter){
			cbETH: body(500, `oops`), cbUSDT: body(503, `down`)},
			want: map[string]string{}, wantErr: "500"},
		{name: "kraken ticker", source: "kraken", answers: map[string]func(http.ResponseWriter){kraken: body(200, okKrak)},
			want: map[string]string{"ETH": "3001", "USDT": "1.0002"}},
		{name: "kraken error list", source: "kraken", answers: map[string]func(http.ResponseWriter){
			kraken: body(200, `{"error":["EQuery:Unknown asset pair"]}`)}, wantErr: "Unknown asset pair"},
		{name: "kraken zero price", source: "kraken", answers: map[string]func(http.ResponseWriter){
			kraken: body(200, `{"error":[],"result":{"XETHZUSD":{"c":["0.00000","0"]},"USDTZUSD":{"c":["1.0001","1"]}}}`)},
			want: map[string]string{"USDT": "1.0001"}, wantErr: "believable"},
		{name: "kraken malformed", source: "kraken", answers: map[string]func(http.ResponseWriter){
			kraken: body(200, `{"error":[],"result":`)}, wantErr: "malformed"},
		{name: "kraken rate limit in a 200", source: "kraken", answers: map[string]func(http.ResponseWriter){
			kraken: body(200, `{"error":["EAPI:Rate limit exceeded"]}`)}, wantErr: "retry"},
		{name: "kraken 429 with a date", source: "kraken", answers: map[string]func(http.ResponseWriter){
			kraken: body(429, `{}`, "Retry-After: "+time.Now().Add(90*time.Second).UTC().Format(http.TimeFormat))}, wantErr: "retry"},
		{name: "coingecko simple price", source: "coingecko", answers: map[string]func(http.ResponseWriter){gecko: body(200, okGecko)},
			want:   map[string]string{"ETH": "3001.37", "USDT": "0.999912"},
			wantAt: map[string]int64{"ETH": 1763900000, "USDT": 1763900010}},
		{name: "coingecko exponent and absurd", source: "coingecko", answers: map[string]func(http.ResponseWriter){
			gecko: body(200, `{"ethereum":{"usd":1e400},"tether":{"usd":1.0e-0}}`)},
			want: map[string]string{"USDT": "1"}, wantErr: "believable"},
		{name: "coingecko quoted price, one missing", source: "coingecko", answers: map[string]func(http.ResponseWriter){
			gecko: body(200, `{"ethereum":{"usd":"3000"},"tether":{}}`)}, want: map[string]string{"ETH": "3000"}, wantErr: "no price"},
		{name: "coingecko malformed", source: "coingecko", answers: map[string]func(http.ResponseWriter){
			gecko: body(200, `{"ethereum":{"usd":[3000]}}`)}, wantErr: "malformed"},
		{name: "coingecko 429", source: "coingecko", answers: map[string]func(http.ResponseWriter){
			gecko: body(429, `{"status":{"error_code":429,"error_message":"You've exceeded the Rate Limit."}}`, "Retry-After: 120")},
			wantErr: "retry"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src, err := New(tt.source, upstream(t, tt.answers).URL, nil)
			if err != nil {
				t.Fatal(err)
			}
			got, err := src.Fetch(context.Background(), symbols)
			var retry *RetryError
			switch {
			case tt.wantErr == "retry":
				if !errors.As(err, &retry) || retry.After < 29*time.Second || retry.After > 121*time.Second {
					t.Fatalf("error %v, want a *RetryError of the Retry-After", err)
				}
			case tt.wantErr == "" && err != nil:
				t.Fatalf("Fetch: %v", err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Fatalf("error %v, want one with %q", err, tt.wantErr)
			}
			if len(got) != len(tt.want) {
				t.Fatalf("priced %v, want %v", got, tt.want)
			}
			for sym, price := range tt.want {
				q, ok := got[sym]
				if !ok || q.USD.Cmp(rat(price)) != 0 {
					t.Errorf("%s = %v, want %s", sym, q.USD, price)
				}
				if at, ok := tt.wantAt[sym]; ok && q.At.Unix() != at {
					t.Errorf("%s at %v, want %d", sym, q.At, at)
				}
			}
		})
	}
}

func TestNewUnknownSource(t *testing.T) {
	if _, err := New("binance", "", nil); err == nil || !strings.Contains(err.Error(), "coinbase, kraken, coingecko") {
		t.Fatalf("New(binance) = %v", err)
	}
}

func TestParsePrice(t *testing.T) {
	tests := []struct {
		text string
		ok   bool
	}{
		{"3000.12", true}, {"0.00001", true}, {"1.2e-05", true}, {"1E3", true},
		{"", false}, {"0", false}, {"-1", false}, {"abc", false}, {"Infinity", false},
		{"1e999999999", false}, {"1000000000", false}, {"1/3", false}, {strings.Repeat("1", 65), false},
	}
	for _, tt := range tests {
		if _, err := parsePrice(tt.text); (err == nil) != tt.ok {
			t.Errorf("parsePrice(%q) error %v, want ok %v", tt.text, err, tt.ok)
		}
	}
}
