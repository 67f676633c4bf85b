package stream

import "github.com/kassapay/kassa"

// Sub is one subscription; it implements Subscription. A sink's
// subscription (SubscribeSink) has no channel.
type Sub struct {
	hub *Hub
	key subKey
	// object, when set, is the id whose events alone the subscription takes
	// (SubscribeKey).
	object string
	ch     chan *kassa.Event
	sink   EventSink
	idx    int // the sink's place in its sinkSet; guarded by hub.mu
	start  kassa.FeedPos
	err    error // guarded by hub.mu
	done   bool  // channel closed; guarded by hub.mu
}

// Events delivers the subscription's events in feed order; it is closed when the
// subscription ends.
func (s *Sub) Events() <-chan *kassa.Event { return s.ch }

// Err tells why Events was closed: ErrSlowConsumer, ErrStreamStopped, or nil after Close
// (and while the subscription is open).
func (s *Sub) Err() error {
	s.hub.mu.Lock()
	defer s.hub.mu.Unlock()
	return s.err
}

// Start is the hub's position when the subscription began: it delivers exactly the
// events after it.
func (s *Sub) Start() kassa.FeedPos { return s.start }

// Close ends the subscription and closes Events (if the hub has not already).
func (s *Sub) Close() {
	h := s.hub
	h.mu.Lock()
	defer h.mu.Unlock()
	if !s.done {
		h.remove(s)
		s.done = true
		if s.ch != nil {
			close(s.ch)
		}
	}
}

// remove takes s out of the index; h.mu is held.
func (h *Hub) remove(s *Sub) {
	if s.sink != nil {
		h.removeSink(s)
		return
	}
	if h.objects.remove(s) {
		return
	}
	if set := h.subs[s.key]; set != nil {
		delete(set, s)
		if len(set) == 0 {
			delete(h.subs, s.key)
		}
	}
}

// removeSink takes a sink's subscription out of its set (the last one takes its
// place); h.mu is held.
func (h *Hub) removeSink(s *Sub) {
	set := h.sinks[s.key]
	if set == nil || s.idx >= len(set.list) || set.list[s.idx] != s {
		return
	}
	last := len(set.list) - 1
	set.list[s.idx] = set.list[last]
	set.list[s.idx].idx = s.idx
	set.list[last] = nil
	set.list = set.list[:last]
	if len(set.list) == 0 {
		delete(h.sinks, s.key)
	}
}
