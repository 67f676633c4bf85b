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

	"kassa"
	"kassa/store"
)

// TestSlowReadersFigure measures the figure of issue 15's server-limits finding:
// 1,000 clients that ask for a 100-invoice list and never read it, against the
// server's RSS and the p99 latency of other requests, then whether the server
// dropped them after its write limit (and, for those whose whole answer fitted
// in the kernel's buffers, after its idle limit). It runs only with KASSA_SLOW_READERS=1, on
// the binary KASSA_BIN names (another build, to compare) or the one TestMain built:
//
//	KASSA_SLOW_READERS=1 go test ./cmd/kassa -run TestSlowReadersFigure -v -timeout 10m
func TestSlowReadersFigure(t *testing.T) {
	if os.Getenv("KASSA_SLOW_READERS") == "" {
		t.Skip("set KASSA_SLOW_READERS=1 to measure")
	}
	if bin := os.Getenv("KASSA_BIN"); bin != "" {
		kassaBin = bin
	}
	const readers, watch, idleCheck = 1000, 90 * time.Second, 130 * time.Second
	k := startKassa(t, store.Config{}, "--rate-limit", "100000", "--rate-burst", "100000",
		"--create-rate-limit", "1000", "--create-rate-burst", "1000")
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
	base := rss(pid)

	dialer := net.Dialer{Control: func(_, _ string, c syscall.RawConn) error {
		return c.Control(func(fd uintptr) { // a small window: the server's writes block
			syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 4096)
		})
	}}
	req := "GET /api/v1/invoices?limit=100 HTTP/1.1\r\nHost: kassa\r\nX-Api-Key: " + k.merchantKey + "\r\n\r\n"
	conns := make([]net.Conn, readers)
	start := time.Now()
	for i := range conns {
		c, err := dialer.Dial("tcp", strings.TrimPrefix(k.url, "http://"))
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		if _, err := io.WriteString(c, req); err != nil {
			t.Fatal(err)
		}
		conns[i] = c
	}

	// Others: one request after another for a single invoice, timed.
	type sample struct {
		at, took time.Duration
	}
	var (
		mu      sync.Mutex
		samples []sample
		peak    = base
	)
	one := mustRequest(t, k.url+"/api/v1/invoices/"+id, auth)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for next := time.Now(); time.Since(start) < watch; next = next.Add(50 * time.Millisecond) {
			time.Sleep(time.Until(next))
			t0 := time.Now()
			resp, err := http.DefaultClient.Do(one.Clone(context.Background()))
			if err == nil {
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
			mu.Lock()
			samples = append(samples, sample{t0.Sub(start), time.Since(t0)})
			if r := rss(pid); r > peak {
				peak = r
			}
			mu.Unlock()
		}
	}()
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
	p99 := func(from, to time.Duration) (time.Duration, int) {
		var d []time.Duration
		for _, s := range samples {
			if s.at >= from && s.at < to {
				d = append(d, s.took)
			}
		}
		slices.Sort(d)
		if len(d) == 0 {
			return 0, 0
		}
		return d[len(d)*99/100], len(d)
	}
	during, n1 := p99(0, 55*time.Second)
	after, n2 := p99(65*time.Second, watch)
	fmt.Printf("slow readers: %d, response %d KiB each\n", readers, size>>10)
	fmt.Printf("RSS: %d MiB before, %d MiB peak, %d MiB at %v\n", base>>20, peak>>20, end>>20, watch)
	fmt.Printf("p99 of other requests: %v in the first 55 s (%d), %v from 65 s to %v (%d)\n",
		during.Round(time.Millisecond), n1, after.Round(time.Millisecond), watch, n2)
	fmt.Printf("slow readers still connected: %d of %d at %v, %d at %v\n", open, readers, watch, openLater, idleCheck)
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
