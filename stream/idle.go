package stream

import (
	"context"
	"fmt"
	"log/slog"
)

// catchUpLocked moves the position of a hub nobody listens to, whose rounds
// skipped the feed, to the feed's head, so the first subscription starts there
// and is not handed what was written while nobody listened. Idle rounds read
// nothing: reading the head at every commit cost a twentieth of an invoice
// create's CPU on SQLite, most of it SQLite unmapping its memory map because the
// WAL had changed. h.mu is held, so no round and no other subscription runs
// meanwhile; should the read fail, the subscription starts at the older position,
// at most Options.IdleSkip behind (still a definite start: the hub reads and fans
// out from there).
func (h *Hub) catchUpLocked() {
	if !h.behind || h.stopped || !h.idleLocked() {
		return
	}
	h.behind = false
	ctx, cancel := context.WithTimeout(context.Background(), catchUpTimeout)
	defer cancel()
	head, err := h.feed.FeedHead(ctx)
	if err != nil {
		h.log.LogAttrs(ctx, slog.LevelWarn, "event stream: reading the feed head", slog.String("error", err.Error()))
		return
	}
	if head.After(h.pos) {
		h.pos = head
	}
}

// skipToHead moves the position of a hub nobody listens to to the feed's head. It
// moves only if still nobody listens once it holds the lock, so a subscription's
// start is never past an event it was not given.
func (h *Hub) skipToHead(ctx context.Context) error {
	head, err := h.feed.FeedHead(ctx)
	if err != nil {
		return fmt.Errorf("reading the feed head: %w", err)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.idleLocked() && head.After(h.pos) {
		h.pos = head
	}
	return nil
}
