package chain

import (
	"context"
	"testing"

	"github.com/kassapay/kassa/metrics"
	"github.com/kassapay/kassa/registry"
)

// BenchmarkRPCMetrics is one call (Head: eth_getBlockByNumber) and one batch
// (Headers of 100 blocks) to a loopback fake node, without metrics and with
// them: the difference is what counting the calls by network, method and outcome
// and timing the exchange cost. Run with
//
//	go test ./chain -run '^$' -bench RPCMetrics -benchmem
func BenchmarkRPCMetrics(b *testing.B) {
	node := newFakeNode(b, 1337, 1000)
	for _, on := range []bool{false, true} {
		name, opts := "metrics=off", RPCOptions{Network: "devchain"}
		if on {
			name = "metrics=on"
			opts.Metrics = metrics.New(metrics.Config{Registry: registry.Default()})
		}
		r, err := NewRPC(node.srv.URL, opts)
		if err != nil {
			b.Fatal(err)
		}
		defer r.Close()
		ctx := context.Background()
		b.Run("call/"+name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := r.Head(ctx); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run("batch100/"+name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := r.Headers(ctx, 1, 100); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
