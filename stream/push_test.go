package stream_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/stream"
)

// recSink records what a hub pushes to it. With hold set it keeps every event
// unsent, so the hub's buffer fills.
type recSink struct {
	hold bool

	mu      sync.Mutex
	batches []*kassa.EventBatch
	events  []string
	pending int
	ended   chan error
}

func newRecSink(hold bool) *recSink { return &recSink{hold: hold, ended: make(chan error, 1)} }

func (s *recSink) Push(b *kassa.EventBatch, buffer int) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.hold {
		if s.pending+len(b.Events) > buffer {
			return false
		}
		s.pending += len(b.Events)
	}
	s.batches = append(s.batches, b)
	for _, e := range b.Events {
		s.events = append(s.events, e.ID)
	}
	return true
}

func (s *recSink) End(err error) { s.ended <- err }

// waitFor waits until s has n events and returns them.
func (s *recSink) waitFor(t *testing.T, n int) []string {
	t.Helper()
	for end := time.Now().Add(deadline); ; time.Sleep(time.Millisecond) {
		s.mu.Lock()
		got := append([]string(nil), s.events...)
		s.mu.Unlock()
		if len(got) >= n {
			return got
		}
		if time.Now().After(end) {
			t.Fatalf("sink got %d of %d events", len(got), n)
		}
	}
}

// runHub runs a hub over feed until the test ends.
func runHub(t *testing.T, feed kassa.EventService, opts stream.Options) (*stream.Hub, chan struct{}, context.CancelFunc) {
	t.Helper()
	hub := stream.New(feed, opts)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); hub.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	return hub, done, cancel
}

// TestHubPushesToSinks: sinks of a key share each batch, across pushers; other
// keys, closed sinks and sinks that refuse do not hold the others up; stopping
// the hub ends the rest.
func TestHubPushesToSinks(t *testing.T) {
	feed := &fakeFeed{}
	wake := make(chan struct{}, 1)
	hub, done, cancel := runHub(t, feed, stream.Options{Wake: wake, Poll: time.Hour, Buffer: 2, Pushers: 3})
	const many = 1000 // several pushers' worth
	sinks := make([]*recSink, many)
	cancels := make([]func(), many)
	for i := range sinks {
		sinks[i] = newRecSink(false)
		cancels[i] = hub.SubscribeSink(1, kassa.Devnet, kassa.ScopeMerchant, sinks[i])
	}
	slow := newRecSink(true)
	hub.SubscribeSink(1, kassa.Devnet, kassa.ScopeMerchant, slow)
	other := newRecSink(false)
	hub.SubscribeSink(2, kassa.Devnet, kassa.ScopeMerchant, other)
	commerce := newRecSink(false)
	hub.SubscribeSink(1, kassa.Devnet, kassa.ScopeCommerce, commerce)
	ch := hub.Subscribe(1, kassa.Devnet, kassa.ScopeMerchant)
	defer ch.Close()
	if n := hub.Subscribers(); n != many+4 {
		t.Fatalf("%d subscribers, want %d", n, many+4)
	}

	var want []string
	add := func(n int) {
		for range n {
			want = append(want, feed.add(1, kassa.Devnet, kassa.EventInvoiceCreated).ID)
			feed.add(2, kassa.Mainnet, kassa.EventInvoiceCreated) // nobody's
		}
		wake <- struct{}{}
	}
	add(1)
	sinks[0].waitFor(t, 1) // the hub has read the first event: the next come in one batch
	got := receive(t, ch, 1)
	add(2) // the slow sink would hold 3 now, over its buffer of 2
	got = append(got, receive(t, ch, 2)...)
	if got[2].ID != want[2] {
		t.Errorf("channel subscriber got %s last, want %s", got[2].ID, want[2])
	}
	for i, s := range sinks {
		if got := s.waitFor(t, 3); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("sink %d got %v, want %v", i, got, want)
		}
	}
	if err := <-slow.ended; !errors.Is(err, kassa.ErrSlowConsumer) {
		t.Errorf("slow sink ended with %v", err)
	}
	if got := slow.waitFor(t, 1); len(got) != 1 || got[0] != want[0] {
		t.Errorf("slow sink got %v, want only %s", got, want[0])
	}
	// Every sink of the key was handed the same batches.
	for i, s := range sinks {
		s.mu.Lock()
		same := len(s.batches) == len(sinks[0].batches)
		for j := range s.batches {
			same = same && s.batches[j] == sinks[0].batches[j]
		}
		s.mu.Unlock()
		if !same {
			t.Fatalf("sink %d was handed other batches than sink 0", i)
		}
	}

	// A cancelled sink gets nothing more; the others go on.
	for _, c := range cancels[:many/2] {
		c()
	}
	add(1)
	for _, s := range sinks[many/2:] {
		s.waitFor(t, 4)
	}
	for i, s := range sinks[:many/2] {
		if got := s.waitFor(t, 3); len(got) != 3 {
			t.Fatalf("cancelled sink %d got %v", i, got)
		}
	}
	if n := hub.Subscribers(); n != many/2+3 {
		t.Errorf("%d subscribers, want %d", n, many/2+3)
	}
	for _, s := range []*recSink{other, commerce} {
		if got := s.waitFor(t, 0); len(got) != 0 {
			t.Errorf("a sink of another key got %v", got)
		}
	}

	cancel()
	<-done
	for _, s := range append([]*recSink{other, commerce}, sinks[many/2:]...) {
		if err := <-s.ended; !errors.Is(err, kassa.ErrStreamStopped) {
			t.Fatalf("after stop: %v", err)
		}
	}
	late := newRecSink(false)
	hub.SubscribeSink(1, kassa.Devnet, kassa.ScopeMerchant, late)()
	if err := <-late.ended; !errors.Is(err, kassa.ErrStreamStopped) {
		t.Errorf("subscribe after stop: %v", err)
	}
}
