// Package stream follows the store's event feed and fans live events out to
// subscribers: channel subscriptions (Subscribe) and sinks it pushes to itself
// (SubscribeSink; the WebSocket streams). One Hub per process reads the feed once,
// whatever the number of subscribers; a subscriber that cannot keep up is dropped
// rather than allowed to stall the others.
//
// # Resuming without gap or duplicate
//
// A subscription delivers exactly the events whose feed position is after the
// hub's position at the moment Subscribe returned (S), in feed order: the hub
// registers the subscriber under the same lock under which it advances its
// position, and it only ever reads settled parts of the feed (FeedAfter holds back
// events whose place could still be taken by a transaction in flight), so nothing
// can later appear at or before S.
//
// A client resuming after event E therefore (1) subscribes, then (2) replays with
// MerchantFeedAfter from E's position, page by page, until a page comes back short,
// then (3) reads the subscription, skipping events whose position is not after the
// last replayed one (L, or E's when the replay found nothing).
//
//   - No gap: the replay ends at the settled end of the feed as it was after
//     Subscribe returned, which is at or after S (the hub read no further than the
//     settled end). So the replay covers (E, L] with L ≥ every event at or before
//     S, and the subscription covers everything after S: together, everything
//     after E.
//   - No duplicate: both sources are in feed order; live events at or before L
//     were replayed and are skipped, the rest come after L and are new.
//
// ResumeAfter does steps 2 and 3's bookkeeping for callers.
package stream

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"runtime"
	"sync"
	"time"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/worker"
)

// catchUpTimeout bounds the read of the feed's head by a hub's first subscription.
const catchUpTimeout = 5 * time.Second

// Defaults of Options.
const (
	DefaultPoll   = 200 * time.Millisecond
	DefaultBuffer = 256
	// DefaultIdleSkip is Options.IdleSkip's default.
	DefaultIdleSkip = time.Second
	// PageSize is how many events one feed read returns at most.
	PageSize = 1000
)

// Options tune a Hub. Zero fields take the defaults.
type Options struct {
	// Wake is signalled after local commits (store.DB.Commits) so new events are
	// read at once; nil: polling only.
	Wake <-chan struct{}
	// Poll is how often the feed is read without a wake-up; it is how events
	// written by other instances on a shared PostgreSQL are seen. Default 200 ms.
	Poll time.Duration
	// Buffer is each subscriber's channel capacity, and how many events a sink may
	// hold unsent; a subscriber whose buffer is full when an event comes is dropped
	// with ErrSlowConsumer. Default 256.
	Buffer int
	// Pushers is how many goroutines push one batch of events to the sinks (when
	// there are enough sinks to share out). Default GOMAXPROCS.
	Pushers int
	// IdleSkip is how often a hub nobody listens to moves its position to the
	// feed's head; otherwise it reads nothing (a first subscription reads the head
	// itself). Default 1 s.
	IdleSkip time.Duration
	// Logger reports feed read failures; nil: discard.
	Logger *slog.Logger
}

// subKey is what a subscriber follows: one merchant's events in one environment
// that one key scope may see.
type subKey struct {
	merchantID int64
	env        kassa.Environment
	scope      kassa.Scope
}

// Hub follows the feed and implements EventStream.
type Hub struct {
	feed kassa.EventService
	opts Options
	log  *slog.Logger

	ready     chan struct{} // closed once Run has read the head of the feed, or stopped
	readyOnce sync.Once

	mu      sync.Mutex
	pos     kassa.FeedPos // everything at or before pos has been fanned out
	behind  bool          // rounds with nobody listening skipped the feed: pos may trail its head
	stopped bool
	subs    map[subKey]map[*Sub]struct{}
	sinks   map[subKey]*sinkSet
	objects objectSubs // SubscribeKey's subscriptions to one object's events
}

// New returns a hub that follows feed. Call Run to start it; Subscribe waits
// until Run has read the head of the feed.
func New(feed kassa.EventService, opts Options) *Hub {
	if opts.Poll <= 0 {
		opts.Poll = DefaultPoll
	}
	if opts.Buffer <= 0 {
		opts.Buffer = DefaultBuffer
	}
	if opts.IdleSkip <= 0 {
		opts.IdleSkip = DefaultIdleSkip
	}
	if opts.Pushers <= 0 {
		opts.Pushers = runtime.GOMAXPROCS(0)
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	return &Hub{feed: feed, opts: opts, log: log, ready: make(chan struct{}),
		subs: map[subKey]map[*Sub]struct{}{}, sinks: map[subKey]*sinkSet{}, objects: newObjectSubs()}
}

// Subscribe follows the events of one merchant in env that scope may see, from the
// hub's current position. It waits until Run has read the head of the feed, so a
// subscription always has a definite start (see the package comment); once Run
// has returned it gives a closed subscription whose Err is ErrStreamStopped.
func (h *Hub) Subscribe(merchantID int64, env kassa.Environment, scope kassa.Scope) Subscription {
	return h.subscribe(merchantID, env, scope, "")
}

// subscribe registers a channel subscription; with an object id, to the events
// that mention it only (SubscribeKey).
func (h *Hub) subscribe(merchantID int64, env kassa.Environment, scope kassa.Scope, object string) *Sub {
	<-h.ready
	s := &Sub{hub: h, key: subKey{merchantID, env, scope}, object: object, ch: make(chan *kassa.Event, h.opts.Buffer)}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.catchUpLocked()
	s.start = h.pos
	if h.stopped {
		s.err, s.done = ErrStreamStopped, true
		close(s.ch)
		return s
	}
	if h.objects.add(s) {
		return s
	}
	set := h.subs[s.key]
	if set == nil {
		set = map[*Sub]struct{}{}
		h.subs[s.key] = set
	}
	set[s] = struct{}{}
	return s
}

// Pos returns the hub's position: every event at or before it has been fanned out.
// While nobody listens it may trail the feed's head; the first subscription moves
// it there.
func (h *Hub) Pos() kassa.FeedPos {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.pos
}

// Subscribers returns how many subscriptions are open.
func (h *Hub) Subscribers() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	n := 0
	for _, set := range h.subs {
		n += len(set)
	}
	for _, set := range h.sinks {
		n += len(set.list)
	}
	return n + h.objects.n
}

// Run follows the feed until ctx ends, then closes every subscription with
// ErrStreamStopped. It starts at the head of the feed and reads after its
// position whenever Options.Wake signals and every Options.Poll (worker.Loop); a
// full page is followed by the next read at once. Read failures are logged and
// retried at the next poll. Run is meant to be called once.
func (h *Hub) Run(ctx context.Context) {
	defer h.stop()
	started := false
	skipped := time.Now() // the last idle move to the head
	worker.Loop{Name: "event stream", Interval: h.opts.Poll, Wake: h.opts.Wake, Log: h.log}.Run(ctx, func(ctx context.Context) (bool, error) {
		if !started {
			head, err := h.feed.FeedHead(ctx)
			if err != nil {
				return false, fmt.Errorf("reading the feed head: %w", err)
			}
			h.mu.Lock()
			h.pos = head
			h.mu.Unlock()
			h.readyOnce.Do(func() { close(h.ready) })
			started = true
		}
		h.mu.Lock()
		pos, idle := h.pos, h.idleLocked()
		if idle {
			h.behind = true
		}
		h.mu.Unlock()
		if idle {
			// Nobody listens: read nothing, but move to the head now and then, so a
			// first subscription whose own read of the head fails starts at most
			// IdleSkip behind it.
			if time.Since(skipped) < h.opts.IdleSkip {
				return false, nil
			}
			skipped = time.Now()
			return false, h.skipToHead(ctx)
		}
		events, err := h.feed.FeedAfter(ctx, pos, PageSize)
		if err != nil {
			return false, fmt.Errorf("reading the feed: %w", err)
		}
		if len(events) > 0 {
			h.fanOut(events)
		}
		return len(events) == PageSize, nil
	})
}

// fanOut hands events to their subscribers and advances the position, under one
// lock so that Subscribe sees either none or all of a batch. A subscriber whose
// buffer is full is dropped; the loop never blocks. Sinks get, after the loop, one
// EventBatch per merchant, environment and scope with that key's events.
func (h *Hub) fanOut(events []*kassa.Event) {
	h.mu.Lock()
	defer h.mu.Unlock()
	var jobs pushJobs
	for _, e := range events {
		if !e.Pos.After(h.pos) {
			continue // the position moved past it meanwhile (a first subscription's catch-up)
		}
		e.Encode() // once per event, not once per subscriber
		key := subKey{e.MerchantID, e.Environment, kassa.EventScope(e.Type)}
		if set := h.sinks[key]; set != nil {
			jobs.add(key, set, e)
		}
		for s := range h.subs[key] {
			if s.object == "" || bytes.Contains(e.Data, []byte(s.object)) {
				h.send(s, e)
			}
		}
		h.objects.fanOut(h, key, e)
		h.pos = e.Pos
	}
	if len(jobs.list) > 0 {
		h.push(jobs.list)
	}
}

// send hands e to a channel subscription, or drops the subscription when its
// buffer is full; h.mu is held.
func (h *Hub) send(s *Sub, e *kassa.Event) {
	select {
	case s.ch <- e:
	default:
		h.remove(s)
		s.err, s.done = ErrSlowConsumer, true
		close(s.ch)
	}
}

// idleLocked reports whether nobody listens; h.mu is held.
func (h *Hub) idleLocked() bool {
	return len(h.subs) == 0 && len(h.sinks) == 0 && h.objects.n == 0
}

// stop closes every subscription with ErrStreamStopped and refuses new ones.
func (h *Hub) stop() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.stopped = true
	for _, set := range h.subs {
		for s := range set {
			s.err, s.done = ErrStreamStopped, true
			close(s.ch)
		}
	}
	h.subs = map[subKey]map[*Sub]struct{}{}
	h.objects.stop()
	for _, set := range h.sinks {
		for _, s := range set.list {
			s.err, s.done = ErrStreamStopped, true
			s.sink.End(ErrStreamStopped)
		}
	}
	h.sinks = map[subKey]*sinkSet{}
	h.readyOnce.Do(func() { close(h.ready) })
}
