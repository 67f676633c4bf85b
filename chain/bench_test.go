package chain_test

import (
	"context"
	"math/big"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/ethclient"

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

// BenchmarkHeadFollowing: a watcher at the head, one new block at a time, with n
// open invoices on the network with locked quotes (one in ten in the native coin,
// so block bodies are read), one more invoice locked before each block. It reports
// JSON-RPC calls per new block, process CPU per block while stepping (the store on
// SQLite and the dev chain answering run in this process; on PostgreSQL the
// database's CPU is not counted), the heap the watcher holds between steps (its
// address set: the heap after GC with the watcher, less the heap after GC once it is
// dropped) and bytes allocated a block. The steps measured follow one that loaded
// the set whole; that step's CPU (load-cpu-ms) is reported on its own. The sizes come from KASSA_BENCH_OPEN (comma-separated; 100,10000 when
// unset); scripts/bench-watcher.sh runs 100, 10,000 and 100,000.
func BenchmarkHeadFollowing(b *testing.B) {
	sizes := []int{100, 10_000}
	if v := os.Getenv("KASSA_BENCH_OPEN"); v != "" {
		sizes = nil
		for _, f := range strings.Split(v, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil {
				b.Fatalf("KASSA_BENCH_OPEN: %v", err)
			}
			sizes = append(sizes, n)
		}
	}
	for _, n := range sizes {
		b.Run(itoa(n)+"-open-invoices", func(b *testing.B) {
			f, d := onDevChain(b, benchStore(b))
			seeded := time.Now()
			for i := range n {
				token := usdt
				if i%10 == 9 {
					token = eth
				}
				f.invoice(b, 1_000, token)
			}
			b.Logf("%d invoices locked in %v", n, time.Since(seeded).Round(time.Millisecond))
			pool := f.w.Nodes.(*chain.Pool)
			f.sync(b)
			// A first block, whose step loads the address set whole: once a
			// start or lease, reported apart from the steps at the head.
			if err := d.Mine(); err != nil {
				b.Fatal(err)
			}
			c0 := processCPU(b)
			f.sync(b)
			load := processCPU(b) - c0
			var m0 runtime.MemStats
			runtime.ReadMemStats(&m0)
			before := pool.Stats()
			const blocks = 50
			var cpu time.Duration
			b.ResetTimer()
			for range blocks {
				f.invoice(b, 1_000, usdt)
				if err := d.Mine(); err != nil {
					b.Fatal(err)
				}
				c0 := processCPU(b)
				if _, err := f.w.Step(f.ctx); err != nil {
					b.Fatal(err)
				}
				cpu += processCPU(b) - c0
			}
			b.StopTimer()
			after := pool.Stats()
			var m1 runtime.MemStats
			runtime.ReadMemStats(&m1)
			alloc := m1.TotalAlloc
			runtime.GC()
			runtime.ReadMemStats(&m1)
			f.w = nil // the watcher, and with it what it keeps between steps
			var m2 runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&m2)
			b.ReportMetric(float64(after.Total()-before.Total())/blocks, "rpc-calls/block")
			b.ReportMetric(float64(after.HTTPRequests-before.HTTPRequests)/blocks, "http-requests/block")
			b.ReportMetric(float64(cpu.Microseconds())/blocks/1000, "cpu-ms/block")
			b.ReportMetric(float64(load.Microseconds())/1000, "load-cpu-ms")
			b.ReportMetric((float64(m1.HeapAlloc)-float64(m2.HeapAlloc))/(1<<20), "set-MiB")
			b.ReportMetric(float64(alloc-m0.TotalAlloc)/blocks/(1<<10), "alloc-KiB/block")
			b.Logf("calls a block by method: %v", perBlock(before.Calls, after.Calls, blocks))
		})
	}
}

// processCPU is the user and system CPU time this process used so far.
func processCPU(tb testing.TB) time.Duration {
	tb.Helper()
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		tb.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// perBlock is the calls per method between two counts, divided by blocks.
func perBlock(before, after map[string]int64, blocks int) map[string]float64 {
	out := map[string]float64{}
	for m, v := range after {
		if d := v - before[m]; d > 0 {
			out[m] = float64(d) / float64(blocks)
		}
	}
	return out
}

// BenchmarkDetectionLatency: the dev chain makes a block every second and the
// watchers run as serve runs them, polling every second ("polling") or, as well,
// stepped by the node's newHeads over WebSocket ("newHeads"); for each payment,
// the time from the moment the block that completes its confirmations appears on
// the node to its invoice's paid_at (written with invoice.paid in the same
// transaction). KASSA_BENCH_PAYMENTS sets the payments (default 40). With
// KASSA_BENCH_RPC_URL, KASSA_BENCH_WS_URL and KASSA_BENCH_KEY set it measures
// against that external node instead (externalNode), paid in OpenZeppelin's
// ERC-20 deployed there.
func BenchmarkDetectionLatency(b *testing.B) {
	n := 40
	if v := os.Getenv("KASSA_BENCH_PAYMENTS"); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil || n < 4 {
			b.Fatalf("KASSA_BENCH_PAYMENTS=%q: want a number >= 4", v)
		}
	}
	for _, mode := range []string{"polling", "newHeads"} {
		b.Run(mode, func(b *testing.B) {
			lat, calls := detectionLatency(b, mode == "newHeads", n)
			b.ReportMetric(calls, "rpc-calls/block")
			b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
			b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
			b.ReportMetric(float64(lat[len(lat)-1].Microseconds())/1000, "max-ms")
			b.Logf("%s, %d payments: min %v, p50 %v, p99 %v, max %v", mode, len(lat), lat[0], lat[len(lat)/2],
				lat[len(lat)*99/100], lat[len(lat)-1])
		})
	}
}

// detectionLatency pays n invoices on a chain with 1 s blocks (the dev chain, or
// the external node), watched as serve watches it (with its newHeads subscription
// when heads), and returns each payment's time from its confirming block's
// appearance to paid_at, sorted, and the watcher's JSON-RPC calls per block over
// HTTP meanwhile.
func detectionLatency(b *testing.B, heads bool, n int) ([]time.Duration, float64) {
	cfg := benchStore(b)
	f := newFixtureAt(b, cfg, storetest.NewClock(time.Now()), time.Now)
	d, rpcURL, wsURL := externalNode(b)
	token, units := int64(usdt), dollars(1)
	if d == nil {
		dev := startDevChain(b, time.Second)
		d, rpcURL, wsURL = dev, dev.URL(), dev.WSURL()
	} else {
		f.listOZT(b, deployOZT(b, d, rpcURL))
		token, units = ozt, big.NewInt(1e18) // 1 USD of an 18-decimal stablecoin
	}
	pool := poolAt(b, rpcURL)
	f.w.Nodes = pool
	if heads {
		f.w.Network.WSURL = wsURL
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	seen := watchBlocks(ctx, d.client)
	f.sync(b) // an external node's blocks so far, not counted
	ws := &chain.Watchers{}
	ws.Add(f.w, time.Second)
	go ws.Run(ctx, nil)
	tokenAddr := f.tokenAddress(b, token)
	first, before := d.head(b), pool.Stats()

	type paid struct {
		inv   *kassa.Invoice
		block uint64
	}
	var payments []paid
	for range n / 4 {
		for i := range 4 {
			inv, addr := f.invoice(b, 1_000, token)
			h := d.send(b, i%len(d.keys), tokenAddr, addr, units)
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
				// The watcher may read the block before the test's own head poll
				// does (the node slow to answer it): then the figure is negative.
				at, ok := seen.wait(p.block+2, 5*time.Second)
				if !ok {
					b.Fatalf("block %d was never seen", p.block+2)
				}
				// A block time early is a payment paid a confirmation short.
				if l := got.PaidAt.Sub(at); l > -300*time.Millisecond {
					lat = append(lat, l)
				} else {
					b.Fatalf("invoice %s paid %v before block %d, its last confirmation, appeared", p.inv.ID, -l, p.block+2)
				}
				break
			}
			if time.Now().After(end) {
				b.Fatalf("invoice %s never paid", p.inv.ID)
			}
		}
	}
	after, blocks := pool.Stats(), d.head(b)-first
	calls := after.Total() - before.Total()
	b.Logf("calls a block by method: %v", perBlock(before.Calls, after.Calls, int(max(blocks, 1))))
	slices.Sort(lat)
	return lat, float64(calls) / float64(max(blocks, 1))
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

// wait is at(n), waiting up to d for block n to be seen.
func (s *blockTimes) wait(n uint64, d time.Duration) (time.Time, bool) {
	for end := time.Now().Add(d); ; time.Sleep(time.Millisecond) {
		if t, ok := s.at(n); ok || time.Now().After(end) {
			return t, ok
		}
	}
}

// watchBlocks polls the node's head every 2 ms until ctx ends.
func watchBlocks(ctx context.Context, client *ethclient.Client) *blockTimes {
	s := &blockTimes{times: map[uint64]time.Time{}}
	go func() {
		for ctx.Err() == nil {
			if n, err := client.BlockNumber(ctx); err == nil {
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
