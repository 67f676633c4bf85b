package main

import (
	"context"
	"io"
	"log/slog"
	"sync"
	"time"
)

// Bounds of the log buffer: a line waits at most logFlushEvery, and the buffer
// is written out once it holds logBufferSize.
const (
	logFlushEvery = 100 * time.Millisecond
	logBufferSize = 32 << 10
)

// logBuffer collects serve's log lines and writes them to w in batches: once it
// holds logBufferSize, logFlushEvery after the first line that waits, right after
// a record at warn or above (flushOnWarn), and on Close when serve ends, after
// which lines go straight through. Under load the access log wrote a line per
// request, a write system call each (2 % of a list's CPU); batched, a second of
// requests takes a few dozen. Lines at info (at most 100 ms or 32 KB of them) may
// then be lost if the process is killed or crashes (not if it shuts down), as with
// nginx's buffered access log; warnings and errors are written at once.
type logBuffer struct {
	mu    sync.Mutex
	w     io.Writer
	buf   []byte
	every time.Duration // logFlushEvery; tests lengthen it
	timer *time.Timer   // flushes every after the first waiting line
	armed bool          // the timer is set
	done  bool          // closed: lines go straight to w
}

// newLogBuffer returns a buffer in front of w.
func newLogBuffer(w io.Writer) *logBuffer {
	b := &logBuffer{w: w, every: logFlushEvery}
	b.timer = time.AfterFunc(time.Hour, b.tick)
	b.timer.Stop()
	return b
}

// Write takes one log line; it never fails (a failed write to w drops lines).
func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.done {
		_, _ = b.w.Write(p)
		return len(p), nil
	}
	b.buf = append(b.buf, p...)
	if len(b.buf) >= logBufferSize {
		b.flushLocked()
	} else if !b.armed {
		b.armed = true
		b.timer.Reset(b.every)
	}
	return len(p), nil
}

// Flush writes out what waits.
func (b *logBuffer) Flush() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.flushLocked()
}

// Close writes out what waits and stops buffering: later lines (of goroutines
// that outlive serve) are written as they come.
func (b *logBuffer) Close() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.flushLocked()
	b.timer.Stop()
	b.done = true
}

// tick is the timer's flush.
func (b *logBuffer) tick() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.armed = false
	b.flushLocked()
}

func (b *logBuffer) flushLocked() {
	if len(b.buf) == 0 {
		return
	}
	_, _ = b.w.Write(b.buf)
	if cap(b.buf) > 4*logBufferSize { // one huge line is not kept
		b.buf = nil
		return
	}
	b.buf = b.buf[:0]
}

// flushOnWarn is a handler writing through a logBuffer that flushes it after
// every record at warn or above, so those are never held back.
type flushOnWarn struct {
	slog.Handler
	b *logBuffer
}

// Handle implements slog.Handler.
func (h flushOnWarn) Handle(ctx context.Context, r slog.Record) error {
	err := h.Handler.Handle(ctx, r)
	if r.Level >= slog.LevelWarn {
		h.b.Flush()
	}
	return err
}

// WithAttrs implements slog.Handler.
func (h flushOnWarn) WithAttrs(as []slog.Attr) slog.Handler {
	return flushOnWarn{h.Handler.WithAttrs(as), h.b}
}

// WithGroup implements slog.Handler.
func (h flushOnWarn) WithGroup(name string) slog.Handler {
	return flushOnWarn{h.Handler.WithGroup(name), h.b}
}
