package chain_test

import (
	"context"
	"math/big"
	"os"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/chain"
	"github.com/kassapay/kassa/store"
	"github.com/kassapay/kassa/store/storetest"
)

// The benchmarks of docs/performance.md ("Chain watching"). Each builds its chain
// on the embedded dev chain and measures the watcher over real JSON-RPC and a real
// store; run them one at a time with -benchtime 1x:
//
//	go test ./chain -run '^$' -bench 'CatchUp|HeadFollowing|DetectionLatency' -benchtime 1x

// benchStore is the store the benchmarks run on: PostgreSQL when
// KASSA_TEST_POSTGRES_DSN is set, else SQLite.
func benchStore(b *testing.B) store.Config {
	b.Helper()
	if os.Getenv(storetest.PostgresDSNEnv) != "" {
		return storetest.PostgresConfig(b)
	}
	return storetest.SQLiteConfig(b)
}

// BenchmarkCatchUp: 10,000 blocks holding 1,000 transfers to deposit addresses,
// read by a watcher that starts at block 0; ERC-20 and native separately.
func BenchmarkCatchUp(b *testing.B) {
	for _, c := range []struct {
		name  string
		token int64
	}{{"erc20", usdt}, {"native", eth}} {
		b.Run(c.name, func(b *testing.B) {
			f, d := onDevChain(b, benchStore(b))
			f.w.Batch = chain.DefaultBatch
			token := ""
			if c.token == usdt {
				token = f.tokenAddress(b, usdt)
			}
			built := time.Now()
			for i := range 1000 {
				_, addr := f.invoice(b, 1_000, c.token)
				amount := dollars(1)
				if c.token == eth {
					amount = big.NewInt(500_000_000_000_000) // 0.0005 ETH = 1 USD
				}
				d.send(b, i%10, token, addr, amount)
				for range 9 {
					if err := d.Mine(); err != nil {
						b.Fatal(err)
					}
				}
			}
			head := d.head(b)
			b.Logf("built %d blocks in %v", head, time.Since(built).Round(time.Millisecond))
			pool := f.w.Nodes.(*chain.Pool)
			before := pool.Stats()
			b.ResetTimer()
			start := time.Now()
			f.sync(b)
			took := time.Since(start)
			b.StopTimer()
			after := pool.Stats()
			b.ReportMetric(float64(head)/took.Seconds(), "blocks/s")
			b.ReportMetric(float64(after.Total()-before.Total()), "rpc-calls")
			b.ReportMetric(float64(after.HTTPRequests-before.HTTPRequests), "http-requests")
			rs, err := f.db.PendingChainPayments(f.ctx, "devchain", 3)
			if err != nil || len(rs) != 0 {
				b.Fatalf("%d payments still pending (%v)", len(rs), err)
			}
		})
	}
}

// BenchmarkHeadFollowing: a watcher at the head, one new block at a time, with
// n open invoices on the network: JSON-RPC calls per new block and the heap.
func BenchmarkHeadFollowing(b *testing.B) {
	for _, n := range []int{10, 10_000} {
		b.Run(itoa(n)+"-open-invoices", func(b *testing.B) {
			f, d := onDevChain(b, benchStore(b))
			for range n {
				f.invoice(b, 1_000, usdt)
			}
			f.sync(b)
			pool := f.w.Nodes.(*chain.Pool)
			runtime.GC()
			var m0 runtime.MemStats
			runtime.ReadMemStats(&m0)
			before := pool.Stats()
			const blocks = 50
			b.ResetTimer()
			for range blocks {
				d.Mine()
				if _, err := f.w.Step(f.ctx); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			after := pool.Stats()
			var m1 runtime.MemStats
			runtime.ReadMemStats(&m1)
			b.ReportMetric(float64(after.Total()-before.Total())/blocks, "rpc-calls/block")
			b.ReportMetric(float64(after.HTTPRequests-before.HTTPRequests)/blocks, "http-requests/block")
			b.ReportMetric(float64(m1.HeapAlloc)/(1<<20), "heap-MiB")
			b.ReportMetric(float64(m1.TotalAlloc-m0.TotalAlloc)/blocks/(1<<10), "alloc-KiB/block")
		})
	}
}

// BenchmarkDetectionLatency: the dev chain makes a block every second and the
// watchers run as serve runs them; for each payment, the time from the moment the
// block that completes its confirmations appears on the node to its invoice's
// paid_at (written with invoice.paid in the same transaction).
func BenchmarkDetectionLatency(b *testing.B) {
	cfg := benchStore(b)
	f := newFixtureAt(b, cfg, storetest.NewClock(time.Now()), time.Now)
	d := startDevChain(b, time.Second)
	f.w.Nodes = d.pool(b)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	seen := watchBlocks(ctx, d)
	ws := &chain.Watchers{}
	ws.Add(f.w, time.Second)
	go ws.Run(ctx, nil)
	usdtAddr := f.tokenAddress(b, usdt)

	type paid struct {
		inv   *kassa.Invoice
		block uint64
	}
	var payments []paid
	for range 10 {
		for i := range 4 {
			inv, addr := f.invoice(b, 1_000, usdt)
			h := d.send(b, i, usdtAddr, addr, dollars(1))
			r, err := d.client.TransactionReceipt(ctx, hexHash(h))
			if err != nil {
				b.Fatal(err)
			}
			payments = append(payments, paid{inv, r.BlockNumber.Uint64()})
		}
	}
	var lat []time.Duration
	for _, p := range payments {
		for end := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
			got, err := f.db.Invoice(f.ctx, p.inv.MerchantID, p.inv.ID)
			if err != nil {
				b.Fatal(err)
			}
			if got.PaidAt != nil {
				at, ok := seen.at(p.block + 2)
				if !ok {
					b.Fatalf("block %d was never seen", p.block+2)
				}
				lat = append(lat, got.PaidAt.Sub(at))
				break
			}
			if time.Now().After(end) {
				b.Fatalf("invoice %s never paid", p.inv.ID)
			}
		}
	}
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Milliseconds()), "p50-ms")
	b.ReportMetric(float64(lat[len(lat)*99/100].Milliseconds()), "p99-ms")
	b.ReportMetric(float64(lat[len(lat)-1].Milliseconds()), "max-ms")
	b.Logf("%d payments: min %v, p50 %v, p99 %v, max %v", len(lat), lat[0], lat[len(lat)/2], lat[len(lat)*99/100], lat[len(lat)-1])
}

// blockTimes records when each block number first appeared on the node.
type blockTimes struct {
	mu    sync.Mutex
	times map[uint64]time.Time
}

func (s *blockTimes) at(n uint64) (time.Time, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, ok := s.times[n]
	return t, ok
}

// watchBlocks polls the node's head every 2 ms until ctx ends.
func watchBlocks(ctx context.Context, d *devChain) *blockTimes {
	s := &blockTimes{times: map[uint64]time.Time{}}
	go func() {
		for ctx.Err() == nil {
			if n, err := d.client.BlockNumber(ctx); err == nil {
				now := time.Now()
				s.mu.Lock()
				if _, ok := s.times[n]; !ok {
					s.times[n] = now
				}
				s.mu.Unlock()
			}
			time.Sleep(2 * time.Millisecond)
		}
	}()
	return s
}

func hexHash(h string) common.Hash { return common.HexToHash(h) }
