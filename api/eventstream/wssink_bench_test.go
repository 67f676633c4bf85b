package eventstream

import (
	"fmt"
	"io"
	"testing"

	"github.com/kassapay/kassa"
)

// BenchmarkSinkPush is the fan-out of one event of about 1.7 KB (an
// invoice.created) to n WebSocket clients over loopback, as the hub pushes it:
// one shared batch, one Push per client, each a non-blocking write of the shared
// frame. The clients read in their own goroutines, on the same cores.
func BenchmarkSinkPush(b *testing.B) {
	for _, n := range []int{100, 1000} {
		b.Run(fmt.Sprintf("clients=%d", n), func(b *testing.B) {
			sinks := make([]*wsSink, n)
			for i := range sinks {
				server, client := tcpPair(b)
				go io.Copy(io.Discard, client)
				sinks[i] = newWSSink(nil)
				sinks[i].attach(server)
				sinks[i].drain()
			}
			events := testEvents(b, b.N, 1600)
			b.SetBytes(int64(n * 1700))
			b.ResetTimer()
			for _, e := range events {
				batch := &kassa.EventBatch{Events: []*kassa.Event{e}}
				for _, s := range sinks {
					s.Push(batch, 1<<20)
				}
			}
			b.StopTimer()
			queued := 0
			for _, s := range sinks {
				s.mu.Lock()
				queued += len(s.queue)
				s.mu.Unlock()
			}
			if queued > 0 {
				b.Logf("%d frames queued (the clients fell behind)", queued)
			}
		})
	}
}
