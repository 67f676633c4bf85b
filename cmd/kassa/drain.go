package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/kassapay/kassa/store"
)

// defaultDrainDelay is the drain delay on PostgreSQL, where other instances can take
// the traffic: above a proxy's health check every 1-2 s, twice over (decisions.md,
// "Production (issue 15)").
const defaultDrainDelay = 5 * time.Second

// drainFlag is --drain-delay: how long a stopping instance reports not ready while
// still serving, as a duration, or auto: defaultDrainDelay on PostgreSQL, 0 on
// SQLite (one instance: no other takes its traffic, so waiting only delays the stop).
type drainFlag struct {
	delay time.Duration
	auto  bool
}

func (f *drainFlag) String() string {
	if f.auto {
		return "auto"
	}
	return f.delay.String()
}

// Set parses "auto" or a duration of zero or more.
func (f *drainFlag) Set(s string) error {
	if s == "auto" {
		*f = drainFlag{auto: true}
		return nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return fmt.Errorf("want auto or a duration such as 5s, not %q", s)
	}
	*f = drainFlag{delay: d}
	return nil
}

// on is the drain delay for a store of the given engine.
func (f *drainFlag) on(engine string) time.Duration {
	if !f.auto {
		return f.delay
	}
	if engine == store.EnginePostgres {
		return defaultDrainDelay
	}
	return 0
}

// drainer is an instance's stopping state: once on, /readyz answers 503 draining
// (api.Config.Draining) and each response closes its connection.
type drainer struct{ on atomic.Bool }

// draining reports whether the instance is stopping.
func (d *drainer) draining() bool { return d.on.Load() }

// wrap asks clients to close each connection after its response while draining
// (Connection: close), so a proxy stops reusing its connections to this instance
// before Shutdown closes the idle ones: a request sent on a connection that the
// server is closing is the race that fails requests at a restart. WebSocket
// handshakes are left alone.
func (d *drainer) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if d.on.Load() && r.Header.Get("Upgrade") == "" {
			w.Header().Set("Connection", "close")
		}
		h.ServeHTTP(w, r)
	})
}

// stop stops srv once serve's context has ended (the first SIGINT or SIGTERM):
// it drains for delay (readiness 503 while requests are still served, so a proxy's
// health check takes the instance out first), then shuts srv down gracefully:
// no new connections, in-flight requests finish within shutdownTimeout, streams
// close with 1001 (srv's shutdown hook). A second signal stops at once: the rest
// of the delay is skipped and open connections are cut.
func (d *drainer) stop(srv *http.Server, delay time.Duration, log *slog.Logger) error {
	again := make(chan os.Signal, 1)
	signal.Notify(again, syscall.SIGINT, syscall.SIGTERM)
	defer signal.Stop(again)
	d.on.Store(true)
	if delay > 0 {
		log.Info("draining: /readyz answers 503 while requests are still served; signal again to stop at once",
			"drain_delay", delay)
		timer := time.NewTimer(delay)
		defer timer.Stop()
		select {
		case <-timer.C:
		case <-again:
			log.Warn("second signal: stopping at once")
			return srv.Close()
		}
	}
	log.Info("shutting down: finishing in-flight requests")
	ctx, cancel := context.WithTimeout(context.Background(), shutdownTimeout)
	defer cancel()
	cut := make(chan struct{})
	go func() {
		select {
		case <-again:
			log.Warn("second signal: stopping at once")
			close(cut)
			cancel()
		case <-ctx.Done():
		}
	}()
	err := srv.Shutdown(ctx)
	if err != nil {
		srv.Close() // what is still open after the timeout or a second signal is cut
	}
	select {
	case <-cut:
		if errors.Is(err, context.Canceled) {
			return nil // the operator asked for it
		}
	default:
	}
	return err
}
