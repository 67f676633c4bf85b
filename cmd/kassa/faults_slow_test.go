package main

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/store/storetest"
)

// slowWindow is how long TestFaultSlowAndIdleClients waits for the server's
// limits (serverLimits: headers 10 s, request 60 s, write 60 s, idle 120 s) to
// close every slow connection.
const slowWindow = 150 * time.Second

// TestFaultSlowAndIdleClients opens, against one serve process, N connections
// of each kind (KASSA_FAULTS_SLOW_CLIENTS, default 1000): slow readers (a
// 100-invoice list asked for through a 4 KiB receive window and never read),
// slow body writers (an invoice create whose body comes a byte every 2 s), slow
// header writers (a header line every 2 s) and idle keep-alive connections (one
// request, then nothing). Meanwhile one client asks for an invoice every 50 ms.
// Every normal request is answered 200, and the server's own limits close every
// slow connection; the p50/p99 of the normal requests before, during and after,
// the serve process's RSS and when each kind was closed are logged.
func TestFaultSlowAndIdleClients(t *testing.T) {
	faultsOn(t)
	n := 1000
	if v, err := strconv.Atoi(os.Getenv("KASSA_FAULTS_SLOW_CLIENTS")); err == nil && v > 0 {
		n = v
	}
	k := newFaultKassa(t, storetest.SQLiteConfig(t))
	var id string
	for range 100 {
		var out struct {
			InvoiceID string `json:"invoice_id"`
		}
		h := map[string]string{"x-api-key": k.key, "Idempotency-Key": kassa.NewUUID()}
		wantStatus(t, call(t, "POST", k.url()+"/api/v1/invoices", h, map[string]any{"amount_usd": 1, "description": strings.Repeat("d", 200)}, &out), 201)
		id = out.InvoiceID
	}

	normal := startNormal(k.url()+"/api/v1/invoices/"+id, k.auth, k.pid())
	time.Sleep(10 * time.Second)
	rssBefore := rss(k.pid())
	normal.setPhase("during")
	host := strings.TrimPrefix(k.url(), "http://")
	kinds := []slowKind{
		{name: "slow readers (4 KiB every 5 s)", open: slowReader(host, k.key), atCheck: true},
		{name: "slow body writers (a byte every 2 s)", open: slowWriter(host, k.key, true)},
		{name: "slow header writers (a line every 2 s)", open: slowWriter(host, k.key, false)},
		{name: "idle keep-alive", open: idleClient(host)},
	}
	began := time.Now()
	held := sampleSockets(k.pid(), began)
	var wg sync.WaitGroup
	for i := range kinds {
		kinds[i].closedAfter = make([]time.Duration, n)
		for j := range n {
			c, watch, err := kinds[i].open()
			if err != nil {
				t.Fatalf("%s %d: %v", kinds[i].name, j, err)
			}
			defer c.Close()
			wg.Add(1)
			go func() {
				defer wg.Done()
				opened := time.Now()
				if watch(c, began.Add(slowWindow)) {
					kinds[i].closedAfter[j] = time.Since(opened)
				}
			}()
		}
	}
	opened := time.Since(began)
	wg.Wait()
	normal.setPhase("after")
	time.Sleep(10 * time.Second)
	normal.stop()
	rssAfter := rss(k.pid())

	figure(t, "%d connections of each kind opened in %v; serve RSS %d MiB before, %d MiB peak during, %d MiB after",
		n, opened.Round(time.Millisecond), rssBefore>>20, normal.peak>>20, rssAfter>>20)
	figure(t, "sockets held by serve, by seconds after the slow clients began: %s", held())
	for _, kind := range kinds {
		var closed []time.Duration
		for _, d := range kind.closedAfter {
			if d > 0 {
				closed = append(closed, d)
			}
		}
		slices.Sort(closed)
		if len(closed) < n {
			t.Errorf("%s: %d of %d still open after %v", kind.name, n-len(closed), n, slowWindow)
		}
		switch {
		case len(closed) > 0 && kind.atCheck:
			figure(t, "%s: %d of %d found closed by the server when drained at %v", kind.name, len(closed), n, slowWindow-readerCheck)
		case len(closed) > 0:
			figure(t, "%s: %d of %d closed by the server, seen after %v (median) to %v (last)", kind.name, len(closed), n,
				closed[len(closed)/2].Round(time.Second), closed[len(closed)-1].Round(time.Second))
		}
	}
	for _, phase := range []string{"before", "during", "after"} {
		took, failed := normal.took[phase], normal.failed[phase]
		if failed > 0 {
			t.Errorf("%d normal requests failed %s the slow clients", failed, phase)
		}
		slices.Sort(took)
		if len(took) > 0 {
			figure(t, "normal requests %s: %d, p50 %v, p99 %v, max %v, failed %d", phase, len(took),
				took[len(took)/2].Round(time.Microsecond*100), took[len(took)*99/100].Round(time.Microsecond*100),
				took[len(took)-1].Round(time.Millisecond), failed)
		}
	}
}

// sampleSockets counts the sockets process pid holds every 5 s from began; the
// returned func stops and renders them ("0s 4012, 5s 4010, …").
func sampleSockets(pid int, began time.Time) func() string {
	var (
		mu   sync.Mutex
		out  []string
		done = make(chan struct{})
	)
	go func() {
		for next := began; ; next = next.Add(5 * time.Second) {
			select {
			case <-done:
				return
			case <-time.After(time.Until(next)):
			}
			mu.Lock()
			out = append(out, fmt.Sprintf("%v %d", time.Since(began).Round(time.Second), sockets(pid)))
			mu.Unlock()
		}
	}()
	return func() string {
		close(done)
		mu.Lock()
		defer mu.Unlock()
		return strings.Join(out, ", ")
	}
}

// sockets counts the sockets among process pid's open files.
func sockets(pid int) int {
	dir := fmt.Sprintf("/proc/%d/fd", pid)
	entries, _ := os.ReadDir(dir)
	n := 0
	for _, e := range entries {
		if target, err := os.Readlink(dir + "/" + e.Name()); err == nil && strings.HasPrefix(target, "socket:") {
			n++
		}
	}
	return n
}

// normalLoad asks for one resource every 50 ms, timing each answer per phase,
// and samples the serve process's peak RSS while the phase is "during".
type normalLoad struct {
	mu     sync.Mutex
	phase  string
	took   map[string][]time.Duration
	failed map[string]int
	peak   int64
	done   chan struct{}
	wg     sync.WaitGroup
}

func startNormal(url string, headers map[string]string, pid int) *normalLoad {
	l := &normalLoad{phase: "before", took: map[string][]time.Duration{}, failed: map[string]int{}, done: make(chan struct{})}
	l.wg.Add(1)
	go func() {
		defer l.wg.Done()
		client := &http.Client{Timeout: 30 * time.Second}
		for next := time.Now(); ; next = next.Add(50 * time.Millisecond) {
			select {
			case <-l.done:
				return
			case <-time.After(time.Until(next)):
			}
			req, _ := http.NewRequest("GET", url, nil)
			for k, v := range headers {
				req.Header.Set(k, v)
			}
			t0 := time.Now()
			resp, err := client.Do(req)
			ok := err == nil && resp.StatusCode == 200
			if err == nil {
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
			took, mem := time.Since(t0), rss(pid)
			l.mu.Lock()
			if ok {
				l.took[l.phase] = append(l.took[l.phase], took)
			} else {
				l.failed[l.phase]++
			}
			if l.phase == "during" {
				l.peak = max(l.peak, mem)
			}
			l.mu.Unlock()
		}
	}()
	return l
}

func (l *normalLoad) setPhase(p string) {
	l.mu.Lock()
	l.phase = p
	l.mu.Unlock()
}

func (l *normalLoad) stop() {
	close(l.done)
	l.wg.Wait()
}
