// Command kassa-load measures Kassa over HTTP from a second process on loopback.
//
//	kassa-load echo [-addr 127.0.0.1:0]          serve a bare net/http JSON echo (the baseline)
//	kassa-load run -url U[,U2,...] -mode create|list|echo|search-cached|search-cold -key K [-c 16] [-d 10s] [-max N]
//	kassa-load ws -url U -key K -clients N -events M [-rate 20] [-d 5m]
//	kassa-load pages -url U -key K [-pages 10000] [-rate 100] [-pay 30s]
//	kassa-load receiver [-addr 127.0.0.1:0] [-d 30m]   a loopback webhook receiver
//	kassa-load hookwait -url RECEIVER -want N [-d 3m]  wait for N deliveries, print deliveries/s
//
// run prints requests per second and latency percentiles; given several base
// URLs (instances on one database) it sends the requests to them in turn. Its loop
// is bounded by -d and by -max requests, so it always stops by itself. ws measures
// the WebSocket event fan-out (ws.go); pages the payment pages' event streams
// (pages.go); receiver and hookwait measure webhook
// delivery (receiver.go).
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kassapay/kassa"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: kassa-load echo|run|ws|pages|receiver|hookwait [flags]")
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "echo":
		err = echo(os.Args[2:])
	case "run":
		err = run(os.Args[2:])
	case "ws":
		err = wsLoad(os.Args[2:])
	case "pages":
		err = pagesLoad(os.Args[2:])
	case "receiver":
		err = receiver(os.Args[2:])
	case "hookwait":
		err = hookWait(os.Args[2:])
	default:
		err = fmt.Errorf("unknown command %q", os.Args[1])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "kassa-load:", err)
		os.Exit(1)
	}
}

// echo serves POST/GET /echo: it reads a JSON body and writes it back as JSON.
func echo(args []string) error {
	fs := flag.NewFlagSet("echo", flag.ExitOnError)
	addr := fs.String("addr", "127.0.0.1:0", "listen address")
	fs.Parse(args)
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	fmt.Printf("echo listening on %s\n", ln.Addr())
	mux := http.NewServeMux()
	mux.HandleFunc("/echo", func(w http.ResponseWriter, r *http.Request) {
		var v map[string]any
		if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<20)).Decode(&v); err != nil && !errors.Is(err, io.EOF) {
			http.Error(w, `{"error":"bad json"}`, http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(v)
	})
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	srv := &http.Server{Handler: mux}
	go func() { <-ctx.Done(); srv.Close() }()
	if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// searchWords are the queries of search-cold: common words and two-word phrases.
var searchWords = []string{"water+bottle", "organic", "wireless+headphones", "cast+iron", "usb+cable", "tent",
	"running+shoes", "coffee+maker", "backpack", "milk", "blue", "stainless+steel", "air+purifier", "keyboard"}

// result is one finished request.
type result struct {
	latency time.Duration
	ok      bool
}

func run(args []string) error {
	fs := flag.NewFlagSet("run", flag.ExitOnError)
	urls := fs.String("url", "http://127.0.0.1:8080", "base URL of the server, or several separated by commas (instances on one database), used in turn")
	mode := fs.String("mode", "create", "create (POST /api/v1/invoices), list (GET /api/v1/invoices?limit=10), echo (POST /echo), "+
		"search-cached (one product search, answered from the cache) or search-cold (every search distinct, so the cache misses)")
	key := fs.String("key", "", "merchant API key (create, list) or commerce key (search-*)")
	conc := fs.Int("c", 16, "concurrent connections")
	dur := fs.Duration("d", 10*time.Second, "how long to send load")
	maxReq := fs.Int("max", 2_000_000, "stop after this many requests")
	fs.Parse(args)
	bases := strings.Split(*urls, ",")
	for i := range bases {
		bases[i] = strings.TrimRight(strings.TrimSpace(bases[i]), "/")
	}

	tr := &http.Transport{MaxIdleConns: len(bases) * *conc, MaxIdleConnsPerHost: *conc, DisableCompression: true}
	client := &http.Client{Transport: tr, Timeout: 30 * time.Second}
	body := []byte(`{"amount_usd": 12.5, "description": "load test", "metadata": {"run": "kassa-load"}}`)
	var seq atomic.Int64
	var turn atomic.Uint64
	newReq := func() *http.Request {
		base := bases[turn.Add(1)%uint64(len(bases))]
		var req *http.Request
		switch *mode {
		case "search-cached":
			req, _ = http.NewRequest("GET", base+"/api/commerce/search?q=water+bottle&limit=20", nil)
		case "search-cold":
			// A distinct maxPrice makes every query a new cache key: the full search runs.
			n := seq.Add(1)
			q := searchWords[n%int64(len(searchWords))]
			req, _ = http.NewRequest("GET", fmt.Sprintf("%s/api/commerce/search?q=%s&limit=20&maxPrice=%d.%03d",
				base, q, 500+n/1000, n%1000), nil)
		case "create":
			req, _ = http.NewRequest("POST", base+"/api/v1/invoices", bytes.NewReader(body))
			req.Header.Set("Idempotency-Key", kassa.NewUUID())
		case "list":
			req, _ = http.NewRequest("GET", base+"/api/v1/invoices?limit=10", nil)
		default:
			req, _ = http.NewRequest("POST", base+"/echo", bytes.NewReader(body))
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("x-api-key", *key)
		return req
	}

	var (
		mu      sync.Mutex
		results = make([]result, 0, 1<<16)
		sent    int
		wg      sync.WaitGroup
	)
	deadline := time.Now().Add(*dur)
	start := time.Now()
	for i := 0; i < *conc; i++ {
		wg.Go(func() {
			local := make([]result, 0, 4096)
			for time.Now().Before(deadline) {
				mu.Lock()
				sent++
				over := sent > *maxReq
				mu.Unlock()
				if over {
					break
				}
				t0 := time.Now()
				resp, err := client.Do(newReq())
				ok := err == nil && resp.StatusCode < 300
				if err == nil {
					io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
				}
				local = append(local, result{time.Since(t0), ok})
			}
			mu.Lock()
			results = append(results, local...)
			mu.Unlock()
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	if len(bases) > 1 {
		fmt.Printf("urls=%d ", len(bases))
	}
	return report(*mode, *conc, elapsed, results)
}

func report(mode string, conc int, elapsed time.Duration, rs []result) error {
	var lat []time.Duration
	failed := 0
	for _, r := range rs {
		if !r.ok {
			failed++
			continue
		}
		lat = append(lat, r.latency)
	}
	if len(lat) == 0 {
		return fmt.Errorf("no request succeeded (%d failed)", failed)
	}
	slices.Sort(lat)
	pct := func(p float64) time.Duration { return lat[int(p*float64(len(lat)-1))] }
	fmt.Printf("mode=%s c=%d requests=%d failed=%d elapsed=%.1fs req/s=%.0f p50=%s p99=%s\n",
		mode, conc, len(rs), failed, elapsed.Seconds(), float64(len(lat))/elapsed.Seconds(),
		pct(0.50).Round(time.Microsecond), pct(0.99).Round(time.Microsecond))
	return nil
}
