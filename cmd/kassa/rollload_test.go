package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math/rand/v2"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/kassapay/kassa"
)

// steadyLoad sends merchant API requests through a proxy from several goroutines
// until stopped (creates with an Idempotency-Key, lists, reads of created
// invoices, and WebSocket token mints: a POST without an Idempotency-Key, which
// no client or proxy may send twice), and counts every answer.
type steadyLoad struct {
	base, key string
	client    *http.Client
	cancel    context.CancelFunc
	wg        sync.WaitGroup

	mu       sync.Mutex
	byStatus map[string]int // "create 201", "list transport error", ...
	failures []string       // the first failures, for the log
	failed   int
	acked    []string // invoices whose create was answered 201
}

// startSteadyLoad starts workers goroutines of each kind, each pausing pause
// between its requests.
func startSteadyLoad(base, key string, workers int, pause time.Duration) *steadyLoad {
	ctx, cancel := context.WithCancel(context.Background())
	l := &steadyLoad{base: base, key: key, cancel: cancel, byStatus: map[string]int{},
		client: &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 3 * workers}}}
	for _, op := range []func(){l.create, l.list, l.get, l.token} {
		for range workers {
			l.wg.Go(func() {
				for ctx.Err() == nil {
					op()
					time.Sleep(pause)
				}
			})
		}
	}
	return l
}

// stop ends the load and waits for the requests in flight.
func (l *steadyLoad) stop() {
	l.cancel()
	l.wg.Wait()
	l.client.CloseIdleConnections()
}

// send sends one request and counts its answer; it returns the body of a 2xx.
func (l *steadyLoad) send(kind, method, path string, body []byte) ([]byte, bool) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, _ := http.NewRequest(method, l.base+path, rd)
	req.Header.Set("x-api-key", l.key)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if kind == "create" {
		req.Header.Set("Idempotency-Key", kassa.NewUUID())
	}
	resp, err := l.client.Do(req)
	var raw []byte
	outcome := "transport error"
	if err == nil {
		raw, err = io.ReadAll(resp.Body)
		resp.Body.Close()
		outcome = fmt.Sprint(resp.StatusCode)
		if err != nil {
			outcome = "body cut"
		}
	}
	ok := err == nil && resp.StatusCode/100 == 2
	l.mu.Lock()
	defer l.mu.Unlock()
	l.byStatus[kind+" "+outcome]++
	if !ok {
		l.failed++
		if len(l.failures) < 20 {
			l.failures = append(l.failures, fmt.Sprintf("%s %s at %s: %s %v %.200s",
				method, path, time.Now().Format("15:04:05.000"), outcome, err, raw))
		}
	}
	return raw, ok
}

func (l *steadyLoad) create() {
	raw, ok := l.send("create", "POST", "/api/v1/invoices", []byte(`{"amount_usd": 1, "description": "rolling"}`))
	var inv struct {
		ID string `json:"invoice_id"`
	}
	if ok && json.Unmarshal(raw, &inv) == nil && inv.ID != "" {
		l.mu.Lock()
		l.acked = append(l.acked, inv.ID)
		l.mu.Unlock()
	}
}

func (l *steadyLoad) token() {
	l.send("token", "POST", "/api/v1/ws/token", []byte(`{"scope": "merchant", "ttl_seconds": 60}`))
}

func (l *steadyLoad) list() { l.send("list", "GET", "/api/v1/invoices?limit=10", nil) }

func (l *steadyLoad) get() {
	l.mu.Lock()
	n := len(l.acked)
	id := ""
	if n > 0 {
		id = l.acked[rand.IntN(n)]
	}
	l.mu.Unlock()
	if id != "" {
		l.send("get", "GET", "/api/v1/invoices/"+id, nil)
	}
}

// report returns the answers by kind and status, sorted.
func (l *steadyLoad) report() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(l.byStatus)) {
		parts = append(parts, fmt.Sprintf("%s: %d", k, l.byStatus[k]))
	}
	return strings.Join(parts, ", ")
}

// eventFollower follows /ws/merchant/events through a proxy, reconnecting with
// since= the last event it read whenever the stream ends, and records the
// invoices of the invoice.created events it saw.
type eventFollower struct {
	cancel context.CancelFunc
	done   chan struct{}

	mu       sync.Mutex
	created  map[string]bool
	last     string
	connects int
	closes   map[string]int // how streams ended: close status or error
	failures []string       // failed dials
}

// followEvents starts a follower of the key's stream at the proxy base.
func followEvents(t *testing.T, base, key string) *eventFollower {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	f := &eventFollower{cancel: cancel, done: make(chan struct{}), created: map[string]bool{}, closes: map[string]int{}}
	go func() {
		defer close(f.done)
		for ctx.Err() == nil {
			f.follow(ctx, "ws"+strings.TrimPrefix(base, "http")+"/ws/merchant/events", key)
		}
	}()
	t.Cleanup(f.stop)
	f.waitLive(t, base, key)
	return f
}

// waitLive returns once the follower's stream is subscribed: a stream delivers only
// what is committed after it subscribed, so an invoice created before that would
// never reach it. It creates probe invoices until the follower sees one.
func (f *eventFollower) waitLive(t *testing.T, base, key string) {
	t.Helper()
	for end := time.Now().Add(30 * time.Second); time.Now().Before(end); {
		var out struct {
			ID string `json:"invoice_id"`
		}
		h := map[string]string{"x-api-key": key, "Idempotency-Key": kassa.NewUUID()}
		wantStatus(t, call(t, "POST", base+"/api/v1/invoices", h, map[string]any{"amount_usd": 1}, &out), 201)
		for seen := time.Now().Add(2 * time.Second); time.Now().Before(seen); time.Sleep(10 * time.Millisecond) {
			if len(f.missing([]string{out.ID})) == 0 {
				return
			}
		}
	}
	t.Fatal("the stream client never saw a probe invoice's invoice.created")
}

// follow reads one connection of the stream until it ends.
func (f *eventFollower) follow(ctx context.Context, stream, key string) {
	f.mu.Lock()
	if f.last != "" {
		stream += "?since=" + url.QueryEscape(f.last)
	}
	f.mu.Unlock()
	ws, resp, err := websocket.Dial(ctx, stream, &websocket.DialOptions{HTTPHeader: http.Header{"X-Api-Key": {key}}})
	if err != nil {
		if ctx.Err() == nil {
			status := 0
			if resp != nil {
				status = resp.StatusCode
			}
			f.mu.Lock()
			f.failures = append(f.failures, fmt.Sprintf("dial at %s: status %d: %v", time.Now().Format("15:04:05.000"), status, err))
			f.mu.Unlock()
			time.Sleep(100 * time.Millisecond)
		}
		return
	}
	defer ws.CloseNow()
	ws.SetReadLimit(4 << 20)
	f.mu.Lock()
	f.connects++
	f.mu.Unlock()
	for {
		_, msg, err := ws.Read(ctx)
		if err != nil {
			end := fmt.Sprint(websocket.CloseStatus(err))
			if websocket.CloseStatus(err) == -1 {
				end = "no close frame"
			}
			if ctx.Err() == nil {
				f.mu.Lock()
				f.closes[end]++
				f.mu.Unlock()
			}
			return
		}
		var ev struct {
			ID, Type string
			Data     struct {
				Object struct {
					ID string `json:"id"`
				} `json:"object"`
			} `json:"data"`
		}
		if json.Unmarshal(msg, &ev) != nil || ev.ID == "" {
			continue
		}
		f.mu.Lock()
		f.last = ev.ID
		if ev.Type == "invoice.created" {
			f.created[ev.Data.Object.ID] = true
		}
		f.mu.Unlock()
	}
}

// stop ends the follower.
func (f *eventFollower) stop() {
	f.cancel()
	<-f.done
}

// missing returns the invoices of ids whose invoice.created the follower has not seen.
func (f *eventFollower) missing(ids []string) []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for _, id := range ids {
		if !f.created[id] {
			out = append(out, id)
		}
	}
	return out
}
