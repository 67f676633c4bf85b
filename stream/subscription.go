package stream

import (
	"errors"
	"sync"

	"github.com/kassapay/kassa"
)

// Reasons a Subscription's Events channel was closed.
var (
	// ErrSlowConsumer: the subscriber's buffer was full when an event came; it fell
	// too far behind and may resume from the last event it saw.
	ErrSlowConsumer = errors.New("event stream: subscriber too slow; dropped")
	// ErrStreamStopped: the stream is shutting down.
	ErrStreamStopped = errors.New("event stream: stopped")
)

// EventStream hands live events to subscribers as they are committed.
type EventStream interface {
	// Subscribe follows the events of one merchant in env that scope may see. The
	// subscription starts at the current head of the feed.
	Subscribe(merchantID int64, env kassa.Environment, scope kassa.Scope) Subscription
}

// Subscription is one subscriber's live feed.
type Subscription interface {
	// Events delivers events in feed order. It is closed when the subscription
	// ends: Close was called, the stream stopped, or the subscriber fell too far
	// behind (Err then says so).
	Events() <-chan *kassa.Event
	// Err tells why Events was closed; nil after Close.
	Err() error
	// Close ends the subscription.
	Close()
}

// PushStream is an EventStream that can also push events to sinks: for
// subscribers that write each event out at once (the WebSocket streams), with no
// goroutine, channel or copy per subscriber and event.
type PushStream interface {
	EventStream
	// SubscribeSink is Subscribe for a sink: from the stream's current position on,
	// the stream calls sink.Push with the events of one merchant in env that scope
	// may see, in feed order, until the returned function is called (after it
	// returns, Push is not called again) or the stream ends the subscription
	// (sink.End says why).
	SubscribeSink(merchantID int64, env kassa.Environment, scope kassa.Scope, sink EventSink) (cancel func())
}

// EventSink takes a subscription's events as a PushStream pushes them.
type EventSink interface {
	// Push hands over the next events of the subscription. It is called from the
	// stream's fan-out, never concurrently with itself but concurrently with other
	// sinks' Push, and must not block. buffer is how many events the sink may hold
	// unsent; a sink that would hold more takes none of b and returns false, and
	// the stream then ends the subscription with ErrSlowConsumer.
	Push(b *EventBatch, buffer int) bool
	// End tells the sink that the stream ended the subscription, with
	// ErrSlowConsumer or ErrStreamStopped. It must not block and is not called once
	// the subscription's cancel has returned.
	End(err error)
}

// EventBatch is a run of live events, in feed order, that a PushStream hands to
// every sink of one merchant, environment and scope at once. The sinks share it,
// so what they render from it (the bytes of a WebSocket frame) is rendered once.
// Its events are encoded (Event.Encode) before it is handed out.
type EventBatch struct {
	Events []*kassa.Event

	once sync.Once
	out  []byte
	err  error
}

// Bytes returns render(b.Events), run by the first caller only: every later call,
// from any goroutine, gets the same bytes, which nobody may modify. Every sink of
// one stream must pass the same render.
func (b *EventBatch) Bytes(render func([]*kassa.Event) ([]byte, error)) ([]byte, error) {
	b.once.Do(func() { b.out, b.err = render(b.Events) })
	return b.out, b.err
}
