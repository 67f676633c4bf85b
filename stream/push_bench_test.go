package stream

import (
	"fmt"
	"testing"

	"github.com/kassapay/kassa"
)

// nopSink takes every batch and does nothing with it.
type nopSink struct{}

func (nopSink) Push(*kassa.EventBatch, int) bool { return true }
func (nopSink) End(error)                        {}

// BenchmarkFanOut is the hub's own cost of handing one event to n subscribers:
// sinks (pushed to, as the WebSocket streams are) and, for comparison, channel
// subscriptions each read by its own goroutine. The sinks write nothing, so this
// is the fan-out without the sockets (api/eventstream's BenchmarkSinkPush has
// them).
func BenchmarkFanOut(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		b.Run(fmt.Sprintf("sinks=%d", n), func(b *testing.B) {
			h := readyHub()
			for range n {
				h.SubscribeSink(1, kassa.Devnet, kassa.ScopeMerchant, nopSink{})
			}
			benchFanOut(b, h)
		})
		b.Run(fmt.Sprintf("channels=%d", n), func(b *testing.B) {
			h := readyHub()
			for range n {
				sub := h.Subscribe(1, kassa.Devnet, kassa.ScopeMerchant)
				go func() {
					for range sub.Events() {
					}
				}()
			}
			benchFanOut(b, h)
			h.stop()
		})
	}
}

// readyHub is a hub whose Run has (as it were) read the head of an empty feed.
func readyHub() *Hub {
	h := New(nil, Options{Buffer: 1 << 16})
	h.readyOnce.Do(func() { close(h.ready) })
	return h
}

func benchFanOut(b *testing.B, h *Hub) {
	e := &kassa.Event{ID: "evt_1", MerchantID: 1, Environment: kassa.Devnet, Type: kassa.EventInvoiceCreated, Data: []byte(`{"id":"inv_1"}`)}
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		e.Pos = kassa.FeedPos{Seq: int64(i + 1)}
		h.fanOut([]*kassa.Event{e})
	}
}
