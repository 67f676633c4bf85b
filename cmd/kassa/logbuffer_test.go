package main

import (
	"log/slog"
	"strings"
	"testing"
	"time"
)

// TestLogBuffer: info lines wait in the buffer until it fills, its timer fires or
// it is flushed; a warning goes out at once, with the lines before it, in order.
func TestLogBuffer(t *testing.T) {
	for _, c := range []struct {
		name string
		log  func(log *slog.Logger, b *logBuffer)
		want []string // in the output right after log, in order; nil: nothing yet
	}{
		{"info waits", func(log *slog.Logger, _ *logBuffer) { log.Info("request", "n", 1) }, nil},
		{"warn goes out with what waits", func(log *slog.Logger, _ *logBuffer) {
			log.Info("request", "n", 1)
			log.Warn("store unavailable")
		}, []string{"msg=request n=1", "level=WARN msg=\"store unavailable\""}},
		{"a group's warn too", func(log *slog.Logger, _ *logBuffer) {
			log.WithGroup("g").With("k", "v").Error("failed")
		}, []string{"msg=failed g.k=v"}},
		{"a full buffer goes out", func(log *slog.Logger, _ *logBuffer) {
			for i := range logBufferSize / 40 {
				log.Info("request", "n", i)
			}
		}, []string{"msg=request n=0", "msg=request n=1"}},
		{"flush", func(log *slog.Logger, b *logBuffer) {
			log.Info("request", "n", 1)
			b.Flush()
		}, []string{"msg=request n=1"}},
		{"after close, straight through", func(log *slog.Logger, b *logBuffer) {
			log.Info("request", "n", 1)
			b.Close()
			log.Info("request", "n", 2)
		}, []string{"msg=request n=1", "msg=request n=2"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			out := &lockedBuffer{}
			b := newLogBuffer(out)
			b.every = time.Hour // only the cases' own flushes
			log := slog.New(flushOnWarn{slog.NewTextHandler(b, nil), b})
			c.log(log, b)
			got := out.String()
			if c.want == nil && got != "" {
				t.Fatalf("written at once: %q, want nothing yet", got)
			}
			at := 0
			for _, w := range c.want {
				i := strings.Index(got[at:], w)
				if i < 0 {
					t.Fatalf("output %q lacks %q after byte %d", got, w, at)
				}
				at += i + len(w)
			}
		})
	}
}

// TestLogBufferTimer: a line that waits is written by the timer without a flush.
func TestLogBufferTimer(t *testing.T) {
	out := &lockedBuffer{}
	b := newLogBuffer(out)
	slog.New(slog.NewTextHandler(b, nil)).Info("request", "n", 1)
	for deadline := time.Now().Add(10 * time.Second); !strings.Contains(out.String(), "msg=request n=1"); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the waiting line was never written")
		}
	}
}
