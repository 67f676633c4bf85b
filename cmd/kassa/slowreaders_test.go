package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/store"
)

// TestSlowReadersFigure measures the figure of issue 15's server-limits finding
// and issue 36's item 8: 1,000 clients that ask for a 100-invoice list and never
// read it, from KASSA_SLOW_READERS_FROM other loopback addresses (127.0.0.2 on;
// default 2, so 500 a address), against the server's RSS and memory statistics
// and the p99 latency of other requests (from 127.0.0.1), then whether the server
// dropped them, and the RSS once they have left. serve runs without the dev chain
// (its own memory grows as it makes blocks) and with the flags of
// KASSA_SLOW_READERS_ARGS (--max-conns-per-address 256: loopback clients count,
// as remote ones do by default). It runs only with KASSA_SLOW_READERS=1, on the
// binary KASSA_BIN names (another build, to compare) or the one TestMain built:
//
//	KASSA_SLOW_READERS=1 KASSA_SLOW_READERS_ARGS="--max-conns-per-address 256" \
//	  go test ./cmd/kassa -run TestSlowReadersFigure -v -timeout 10m
func TestSlowReadersFigure(t *testing.T) {
	if os.Getenv("KASSA_SLOW_READERS") == "" {
		t.Skip("set KASSA_SLOW_READERS=1 to measure")
	}
	if bin := os.Getenv("KASSA_BIN"); bin != "" {
		kassaBin = bin
	}
	sources := 2
	if n, err := strconv.Atoi(os.Getenv("KASSA_SLOW_READERS_FROM")); err == nil && n > 0 {
		sources = n
	}
	const readers, watch, idleCheck, gone = 1000, 90 * time.Second, 130 * time.Second, 190 * time.Second
	pprofAddr := freeAddr(t)
	k := startKassa(t, store.Config{}, append([]string{"--devchain=false", "--rate-limit", "100000", "--rate-burst", "100000",
		"--create-rate-limit", "1000", "--create-rate-burst", "1000", "--pprof-addr", pprofAddr},
		strings.Fields(os.Getenv("KASSA_SLOW_READERS_ARGS"))...)...)
	auth := map[string]string{"x-api-key": k.merchantKey}
	var id string
	for range 100 {
		var out struct {
			InvoiceID string `json:"invoice_id"`
		}
		h := map[string]string{"x-api-key": k.merchantKey, "Idempotency-Key": kassa.NewUUID()}
		wantStatus(t, call(t, "POST", k.url+"/api/v1/invoices", h, map[string]any{"amount_usd": 1, "description": strings.Repeat("d", 200)}, &out), 201)
		id = out.InvoiceID
	}
	size := len(getBody(t, k.url+"/api/v1/invoices?limit=100", auth))
	pid := k.cmd.Process.Pid
	base, baseMem := rss(pid), memStats(t, pprofAddr)

	req := "GET /api/v1/invoices?limit=100 HTTP/1.1\r\nHost: kassa\r\nX-Api-Key: " + k.merchantKey + "\r\n\r\n"
	conns := make([]net.Conn, 0, readers)
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	start := time.Now()
	for i := range readers {
		c, err := slowReaderDialer(fmt.Sprintf("127.0.0.%d", 2+i%sources)).Dial("tcp", strings.TrimPrefix(k.url, "http://"))
		if err != nil {
			t.Fatal(err)
		}
		conns = append(conns, c)
		io.WriteString(c, req) // a connection over the server's cap may be closed already
	}
	connected := time.Since(start)

	// Others: one request after another for a single invoice, timed; RSS every 10 s.
	type sample struct {
		at, took time.Duration
		failed   bool
	}
	var (
		mu      sync.Mutex
		samples []sample
		peak    = base
		rssAt   []string
	)
	one := mustRequest(t, k.url+"/api/v1/invoices/"+id, auth)
	done := make(chan struct{})
	go func() {
		defer close(done)
		nextRSS := time.Duration(0)
		for next := time.Now(); time.Since(start) < watch; next = next.Add(50 * time.Millisecond) {
			time.Sleep(time.Until(next))
			t0 := time.Now()
			resp, err := http.DefaultClient.Do(one.Clone(context.Background()))
			failed := err != nil
			if err == nil {
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				failed = resp.StatusCode != 200
			}
			r := rss(pid)
			mu.Lock()
			samples = append(samples, sample{t0.Sub(start), time.Since(t0), failed})
			peak = max(peak, r)
			if at := time.Since(start); at >= nextRSS {
				rssAt = append(rssAt, fmt.Sprintf("%ds %d", at/time.Second, r>>20))
				nextRSS += 10 * time.Second
			}
			mu.Unlock()
		}
	}()
	time.Sleep(time.Until(start.Add(5 * time.Second)))
	duringMem := memStats(t, pprofAddr)
	saveHeap(t, pprofAddr, "during")
	<-done
	end := rss(pid)

	// A reader still connected is one the server holds: blocked in its write, or,
	// when the whole response fitted in the kernel's buffers, idle (until the idle
	// limit). Reading drains what the kernel holds, then EOF or a timeout tells.
	stillOpen := func() int {
		open := 0
		for _, c := range conns {
			c.SetReadDeadline(time.Now().Add(100 * time.Millisecond))
			if _, err := io.Copy(io.Discard, bufio.NewReader(c)); isTimeout(err) {
				open++
			}
		}
		return open
	}
	open := stillOpen()
	time.Sleep(time.Until(start.Add(idleCheck)))
	openLater := stillOpen()
	for _, c := range conns { // they leave
		c.Close()
	}
	for at := idleCheck + 10*time.Second; at < gone; at += 10 * time.Second {
		time.Sleep(time.Until(start.Add(at)))
		rssAt = append(rssAt, fmt.Sprintf("%ds %d", at/time.Second, rss(pid)>>20))
	}
	time.Sleep(time.Until(start.Add(gone)))
	after, afterMem := rss(pid), memStats(t, pprofAddr)
	saveHeap(t, pprofAddr, "after")

	p99 := func(from, to time.Duration) string {
		var d []time.Duration
		failed := 0
		for _, s := range samples {
			if s.at >= from && s.at < to {
				d = append(d, s.took)
				if s.failed {
					failed++
				}
			}
		}
		slices.Sort(d)
		if len(d) == 0 {
			return "no requests"
		}
		q := func(p int) time.Duration { return d[len(d)*p/100].Round(100 * time.Microsecond) }
		return fmt.Sprintf("p50 %v p99 %v max %v (%d requests, %d failed)", q(50), q(99), d[len(d)-1].Round(time.Millisecond), len(d), failed)
	}
	fmt.Printf("slow readers: %d from %d addresses, response %d KiB each; connected in %v\n",
		readers, sources, size>>10, connected.Round(time.Millisecond))
	fmt.Printf("RSS: %d MiB before, %d MiB peak, %d MiB at %v, %d MiB at %v (%v after they left)\n",
		base>>20, peak>>20, end>>20, watch, after>>20, gone, gone-idleCheck)
	fmt.Printf("RSS every 10 s, and after they left (s MiB): %s\n", strings.Join(rssAt, ", "))
	fmt.Printf("memory before: %s\nmemory at 5 s: %s\nmemory at %v: %s\n", baseMem, duringMem, gone, afterMem)
	fmt.Printf("other requests, first 10 s: %s\n", p99(0, 10*time.Second))
	fmt.Printf("other requests, first 55 s: %s\n", p99(0, 55*time.Second))
	fmt.Printf("other requests, 65 s to %v: %s\n", watch, p99(65*time.Second, watch))
	fmt.Printf("slow readers still connected: %d of %d at %v, %d at %v\n", open, readers, watch, openLater, idleCheck)
}

// slowReaderDialer dials from the local address from with a 4 KiB receive
// window, so the server's writes block once the kernel's buffers are full.
func slowReaderDialer(from string) *net.Dialer {
	return &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(from)},
		Control: func(_, _ string, c syscall.RawConn) error {
			return c.Control(func(fd uintptr) {
				syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 4096)
			})
		}}
}

// memStats is a line of the Go runtime's memory statistics of the server whose
// profiler listens at addr (the MemStats lines of its debug heap profile), in MiB.
func memStats(t *testing.T, addr string) string {
	t.Helper()
	b := getBody(t, "http://"+addr+"/debug/pprof/heap?debug=1", nil)
	var parts []string
	for _, line := range strings.Split(string(b), "\n") {
		for _, name := range []string{"HeapAlloc", "HeapInuse", "HeapIdle", "HeapReleased", "Stack", "Sys", "NextGC", "NumGC"} {
			v, ok := strings.CutPrefix(line, "# "+name+" = ")
			if !ok {
				continue
			}
			n, _ := strconv.ParseInt(strings.Fields(v)[0], 10, 64)
			if name != "NumGC" {
				n >>= 20
			}
			parts = append(parts, fmt.Sprintf("%s %d", name, n))
		}
	}
	return strings.Join(parts, ", ")
}

// saveHeap writes the server's heap profile to the temporary directory, for
// go tool pprof, and says where.
func saveHeap(t *testing.T, addr, name string) {
	t.Helper()
	file := fmt.Sprintf("%s/kassa-slowreaders-heap-%s.pb.gz", os.TempDir(), name)
	if err := os.WriteFile(file, getBody(t, "http://"+addr+"/debug/pprof/heap", nil), 0o644); err != nil {
		t.Fatal(err)
	}
	fmt.Printf("heap profile %s: %s\n", name, file)
}

// getBody returns the body of a GET with headers.
func getBody(t *testing.T, url string, headers map[string]string) []byte {
	t.Helper()
	resp, err := http.DefaultClient.Do(mustRequest(t, url, headers))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return b
}

// mustRequest is a GET of url with headers.
func mustRequest(t *testing.T, url string, headers map[string]string) *http.Request {
	req, err := http.NewRequest("GET", url, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	return req
}

// isTimeout reports whether err is a deadline passing.
func isTimeout(err error) bool {
	ne, ok := err.(net.Error)
	return ok && ne.Timeout()
}

// rss is the resident set size of process pid in bytes.
func rss(pid int) int64 {
	b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return kb << 10
		}
	}
	return 0
}
