package chain_test

import (
	"context"
	"math/big"
	"sync"
	"testing"
	"time"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/store"
	"github.com/kassapay/kassa/store/storetest"
)

// movingRates is a rate source whose ETH price a test sets as a function of
// time; other tokens keep the static table's rates. It records the times it was
// asked about.
type movingRates struct {
	static kassa.RateSource
	now    func() time.Time

	mu    sync.Mutex
	eth   func(at time.Time) *big.Rat // nil answer: unavailable
	asked []time.Time
}

func (m *movingRates) Rate(ctx context.Context, t kassa.Token) (kassa.Rate, error) {
	return m.RateAt(ctx, t, m.now())
}

func (m *movingRates) RateAt(ctx context.Context, t kassa.Token, at time.Time) (kassa.Rate, error) {
	if t.ID != eth {
		return m.static.Rate(ctx, t)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.asked = append(m.asked, at)
	if p := m.eth(at); p != nil {
		return kassa.Rate{USDPerToken: p, UpdatedAt: at}, nil
	}
	return kassa.Rate{}, kassa.Errorf(kassa.KindConflict, "rate_unavailable", "no ETH rate at %v", at)
}

func (m *movingRates) set(price func(at time.Time) *big.Rat) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.eth, m.asked = price, nil
}

// fell is ETH at from until t, at to after it.
func fell(t time.Time, from, to int64) func(time.Time) *big.Rat {
	return func(at time.Time) *big.Rat {
		if at.After(t) {
			return big.NewRat(to, 1)
		}
		return big.NewRat(from, 1)
	}
}

// wei is n hundredths of an ETH in wei.
func wei(hundredths int64) *big.Int {
	return new(big.Int).Mul(big.NewInt(hundredths), big.NewInt(10_000_000_000_000_000))
}

// TestDevChainTransferAfterItsQuote: real transfers on the dev chain, valued by
// their block's time against their quote's expiry (issue 36, finding 1). A
// transfer in a block after the quote ran out (plus kassa.QuoteGrace) is valued
// at the market rate of its block's time, never better for the payor than the
// locked rate; one inside the quote keeps the locked rate whatever the market
// did; a stablecoin in its peg is unaffected; a late transfer no rate can value
// is kept for a person.
func TestDevChainTransferAfterItsQuote(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		// Kassa's clock an hour behind the dev chain's: quotes locked now ran
		// out 45 minutes before the chain's next block.
		clock := storetest.NewClock(time.Now().Add(-time.Hour).Truncate(time.Second))
		f := newFixtureAt(t, cfg, clock, clock.Now)
		rates := &movingRates{static: f.pay.Rates, now: clock.Now, eth: fell(time.Time{}, 2000, 2000)}
		f.pay.Rates = rates
		d := startDevChain(t, 0)
		f.w = f.watcher(nil)
		f.w.Nodes = d.pool(t)
		f.sync(t)
		usdtAddr := f.tokenAddress(t, usdt)

		// Every quote below: ETH at 2,000 USD, so 0.05 ETH for 100 USD.
		fallen, aFallen := f.invoice(t, 100_000, eth)
		risen, aRisen := f.invoice(t, 100_000, eth)
		unpriced, aUnpriced := f.invoice(t, 100_000, eth)
		requoted, aRequoted := f.invoice(t, 100_000, eth)
		stable, aStable := f.invoice(t, 10_000, usdt)
		expired := clock.Now().Add(kassa.QuoteLock)

		// The market after the quotes ran out: ETH fell to 200 USD.
		rates.set(fell(expired, 2000, 200))
		d.send(t, 0, "", aFallen, wei(5)) // 0.05 ETH: worth 10 USD by then
		d.send(t, 0, usdtAddr, aStable, dollars(10))
		d.Mine()
		d.Mine()
		f.sync(t)
		f.statuses(t, fallen, kassa.StatusUnderpaid, kassa.PaymentUnderpaid)
		f.statuses(t, stable, kassa.StatusPaid, kassa.PaymentConfirmed)
		if got, _ := f.db.Invoice(f.ctx, fallen.MerchantID, fallen.ID); got.AmountPaid != 10_000 {
			t.Fatalf("0.05 ETH sent after its quote, ETH at 200: amount_paid %d, want 10000", got.AmountPaid)
		}
		// The rate asked for was that of the block's time (the chain's clock,
		// an hour ahead of Kassa's), not of Kassa's now.
		rates.mu.Lock()
		asked := append([]time.Time(nil), rates.asked...)
		rates.mu.Unlock()
		if len(asked) == 0 {
			t.Fatal("the late transfer was valued without asking for a rate")
		}
		for _, at := range asked {
			if at.Before(clock.Now().Add(50 * time.Minute)) {
				t.Fatalf("asked for the rate at %v, Kassa's now %v: want the block's time, an hour ahead", at, clock.Now())
			}
		}

		// ETH rose to 2,500 USD: 0.04 ETH would be 100 USD at the market, but
		// a late payor gets no better than the locked 2,000: 80 USD.
		rates.set(fell(expired, 2000, 2500))
		d.send(t, 1, "", aRisen, wei(4))
		d.Mine()
		d.Mine()
		f.sync(t)
		if got, _ := f.db.Invoice(f.ctx, risen.MerchantID, risen.ID); got.Status != kassa.StatusUnderpaid || got.AmountPaid != 80_000 {
			t.Fatalf("0.04 ETH sent after its quote, ETH at 2,500: %s with amount_paid %d, want underpaid with 80000",
				got.Status, got.AmountPaid)
		}

		// No market rate at all once the quote ran out: kept for a person.
		rates.set(func(at time.Time) *big.Rat {
			if at.After(expired) {
				return nil
			}
			return big.NewRat(2000, 1)
		})
		d.send(t, 2, "", aUnpriced, wei(5))
		d.Mine()
		d.Mine()
		f.sync(t)
		f.statuses(t, unpriced, kassa.StatusUnpaid, kassa.PaymentManualRetry)

		// Inside its quote, a transfer keeps the locked rate even though the
		// market fell right after the lock.
		clock.Set(time.Now().Truncate(time.Second))
		rates.set(fell(time.Time{}, 2000, 2000))
		held, aHeld := f.invoice(t, 100_000, eth)
		rates.set(fell(clock.Now(), 2000, 200))
		d.send(t, 0, "", aHeld, wei(5))
		d.Mine()
		d.Mine()
		f.sync(t)
		f.statuses(t, held, kassa.StatusPaid, kassa.PaymentConfirmed)

		// Sent after its quote ran out while ETH stood at 200; before the
		// watcher sees it, the payor asks for a new quote at a peak of 2,500.
		// The new quote began after the block: it lends the transfer nothing.
		d.send(t, 1, "", aRequoted, wei(5))
		peak := time.Now().Add(90 * time.Second)
		rates.set(func(at time.Time) *big.Rat {
			if at.After(peak) {
				return big.NewRat(2500, 1)
			}
			return big.NewRat(200, 1)
		})
		clock.Set(time.Now().Add(3 * time.Minute).Truncate(time.Second))
		inv, err := f.db.Invoice(f.ctx, requoted.MerchantID, requoted.ID)
		if err != nil {
			t.Fatal(err)
		}
		q, err := f.pay.LockAddress(f.ctx, inv, eth)
		if err != nil || q.Rate != "2500.00000000" {
			t.Fatalf("the new quote: %+v, %v; want one at 2500", q, err)
		}
		d.Mine()
		d.Mine()
		f.sync(t)
		if got, _ := f.db.Invoice(f.ctx, requoted.MerchantID, requoted.ID); got.Status != kassa.StatusUnderpaid || got.AmountPaid != 10_000 {
			t.Fatalf("0.05 ETH sent at 200 USD, quoted again at 2,500 before it was seen: %s with amount_paid %d, want underpaid with 10000",
				got.Status, got.AmountPaid)
		}
	})
}
