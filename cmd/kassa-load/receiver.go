package main

import (
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
	"sync"
	"syscall"
	"time"
)

// hookStats is what the receiver counted since it started or was last reset.
type hookStats struct {
	Count  int       `json:"count"`  // POSTs answered
	Unique int       `json:"unique"` // distinct webhook-id headers among them
	First  time.Time `json:"first"`  // arrival of the first and the last
	Last   time.Time `json:"last"`
	PerSec float64   `json:"per_second"` // count / (last - first)
}

type hookCounter struct {
	mu  sync.Mutex
	s   hookStats
	ids map[string]struct{}
}

func (h *hookCounter) add(id string) {
	now := time.Now()
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.s.Count == 0 {
		h.s.First = now
	}
	h.s.Count++
	h.s.Last = now
	if _, dup := h.ids[id]; !dup {
		h.ids[id] = struct{}{}
		h.s.Unique++
	}
}

func (h *hookCounter) stats() hookStats {
	h.mu.Lock()
	defer h.mu.Unlock()
	s := h.s
	if span := s.Last.Sub(s.First).Seconds(); span > 0 {
		s.PerSec = float64(s.Count) / span
	}
	return s
}

func (h *hookCounter) reset() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.s, h.ids = hookStats{}, map[string]struct{}{}
}

// receiver runs "kassa-load receiver": a loopback webhook endpoint that answers
// 200 "ok" to every POST (any path but /reset) and counts it. GET /stats answers
// the counts as JSON, POST /reset zeroes them. It stops on SIGINT/SIGTERM or after
// -d, printing the counts.
func receiver(args []string) error {
	fs := flag.NewFlagSet("receiver", flag.ExitOnError)
	addr := fs.String("addr", "127.0.0.1:0", "listen address (loopback)")
	dur := fs.Duration("d", 30*time.Minute, "exit after this long")
	fs.Parse(args)
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	fmt.Printf("receiver listening on %s\n", ln.Addr())
	h := &hookCounter{ids: map[string]struct{}{}}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /stats", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(h.stats())
	})
	mux.HandleFunc("POST /reset", func(w http.ResponseWriter, r *http.Request) { h.reset() })
	mux.HandleFunc("POST /", func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, io.LimitReader(r.Body, 1<<20))
		h.add(r.Header.Get("webhook-id"))
		io.WriteString(w, "ok")
	})
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ctx, cancel := context.WithTimeout(ctx, *dur)
	defer cancel()
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() { <-ctx.Done(); srv.Close() }()
	if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	b, _ := json.Marshal(h.stats())
	fmt.Printf("receiver stats %s\n", b)
	return nil
}

// hookWait runs "kassa-load hookwait": it polls a receiver's /stats until it has
// counted -want distinct deliveries, nothing arrived for -idle, or -d passed, then
// prints the figures; an error when fewer than -want arrived.
func hookWait(args []string) error {
	fs := flag.NewFlagSet("hookwait", flag.ExitOnError)
	base := fs.String("url", "", "receiver base URL, e.g. http://127.0.0.1:4242")
	want := fs.Int("want", 1, "distinct deliveries to wait for")
	dur := fs.Duration("d", 3*time.Minute, "wait at most this long")
	idle := fs.Duration("idle", 20*time.Second, "give up when nothing arrived for this long")
	label := fs.String("label", "webhooks", "label of the printed line")
	fs.Parse(args)
	client := &http.Client{Timeout: 5 * time.Second}
	get := func() (hookStats, error) {
		var s hookStats
		resp, err := client.Get(*base + "/stats")
		if err != nil {
			return s, err
		}
		defer resp.Body.Close()
		return s, json.NewDecoder(resp.Body).Decode(&s)
	}
	start, deadline := time.Now(), time.Now().Add(*dur)
	var s hookStats
	lastCount, lastChange := -1, time.Now()
	for time.Now().Before(deadline) {
		var err error
		if s, err = get(); err != nil {
			return err
		}
		if s.Unique >= *want {
			break
		}
		if s.Count != lastCount {
			lastCount, lastChange = s.Count, time.Now()
		} else if time.Since(lastChange) > *idle {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	fmt.Printf("%s: deliveries=%d unique=%d want=%d first->last=%.2fs deliveries/s=%.0f (waited %.1fs)\n",
		*label, s.Count, s.Unique, *want, s.Last.Sub(s.First).Seconds(), s.PerSec, time.Since(start).Seconds())
	if s.Unique < *want {
		return fmt.Errorf("%s: only %d of %d deliveries arrived", *label, s.Unique, *want)
	}
	return nil
}
