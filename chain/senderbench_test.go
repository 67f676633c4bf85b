package chain_test

import (
	"context"
	"math/big"
	"os"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/chain"
	"github.com/kassapay/kassa/store/storetest"
)

// BenchmarkSettlement (docs/performance.md, "Settlement on chain"): the dev chain
// makes a block every second; the watcher, the settlement worker and the sender
// run as serve runs them. 60 USDT payments to 60 deposit addresses arrive at
// once (KASSA_BENCH_RECEIPTS sets another number); for each receipt, the time from its confirmation (confirmed_at) to
// settled is measured, and the receipts settled per minute from the first
// confirmation to the last settlement. Gas per settled receipt (top-up and
// sweep, from the receipts) is set against the gas of the payor's own transfer.
//
//	go test ./chain -run '^$' -bench Settlement -benchtime 1x
func BenchmarkSettlement(b *testing.B) {
	n := 60
	if v, err := strconv.Atoi(os.Getenv("KASSA_BENCH_RECEIPTS")); err == nil && v > 0 {
		n = v // a bigger burst: KASSA_BENCH_RECEIPTS=300
	}
	f := newFixtureAt(b, benchStore(b), storetest.NewClock(time.Now()), time.Now)
	d := startDevChain(b, time.Second)
	f.w.Nodes = d.pool(b)
	p := payOn(b, f, d, true)
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	defer func() { cancel(); wg.Wait() }()
	ws := &chain.Watchers{}
	ws.Add(f.w, time.Second)
	wg.Go(func() { ws.Run(ctx, nil) })
	wg.Go(func() { p.settler.Run(ctx, 2*time.Second) })
	wg.Go(func() { p.sender.Run(ctx, time.Second) })

	usdtAddr := f.tokenAddress(b, usdt)
	var invs []*kassa.Invoice
	var hashes []string
	d.mu.Lock()
	for i := range n {
		inv, addr := f.invoice(b, 1_000, usdt)
		invs = append(invs, inv)
		hashes = append(hashes, d.sendAsync(b, i%10, usdtAddr, addr, dollars(1)))
	}
	d.mu.Unlock()
	b.ResetTimer()
	settledAt := map[string]time.Time{}
	for deadline := time.Now().Add(5 * time.Minute); len(settledAt) < n; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			b.Fatalf("%d of %d settled after 5 minutes", len(settledAt), n)
		}
		for _, inv := range invs {
			if _, ok := settledAt[inv.ID]; !ok && p.settled(b, inv) {
				settledAt[inv.ID] = time.Now()
			}
		}
	}
	b.StopTimer()
	var lat []time.Duration
	first, last := time.Time{}, time.Time{}
	for _, inv := range invs {
		_, rs := f.state(b, inv)
		confirmed := *rs[0].ConfirmedAt
		lat = append(lat, settledAt[inv.ID].Sub(confirmed))
		if first.IsZero() || confirmed.Before(first) {
			first = confirmed
		}
		if settledAt[inv.ID].After(last) {
			last = settledAt[inv.ID]
		}
	}
	slices.Sort(lat)
	b.ReportMetric(float64(n)/last.Sub(first).Minutes(), "receipts/min")
	b.ReportMetric(float64(lat[len(lat)/2].Milliseconds()), "p50-ms")
	b.ReportMetric(float64(lat[len(lat)*99/100].Milliseconds()), "p99-ms")

	var used uint64
	for _, tx := range p.outbox(b) {
		used += tx.GasUsed
	}
	payor, err := d.pool(b).Node().Transaction(ctx, hashes[0])
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(used)/float64(n), "gas/receipt")
	b.ReportMetric(float64(payor.GasUsed), "gas-payor-transfer")
	p.wantBalance(b, usdt, p.merchant, new(big.Int).Mul(dollars(1), big.NewInt(int64(n))))
}
