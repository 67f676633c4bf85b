package main

import (
	"context"
	"fmt"
	"math/big"
	"math/rand/v2"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/invoicing"
	"github.com/kassapay/kassa/store"
	"github.com/kassapay/kassa/worker"
)

// The seeded year: invoice i of n is created at seedStart + i*(seedYear/n).
const seedYear = 365 * 24 * time.Hour

// Words the descriptions are made of. rareWord is in one invoice of a million
// (the 777,780th of each million, the biggest merchant's), so a search for it
// finds a handful.
var (
	adjectives = strings.Fields("blue red green black white small large ceramic wooden steel glass cotton woolen " +
		"leather silver golden vintage modern classic handmade organic recycled compact portable " +
		"heavy light soft bright dark striped plain deluxe premium basic spare")
	nouns = strings.Fields("mug teapot cup plate bowl lamp chair table shelf basket candle vase frame clock " +
		"notebook pen pencil backpack wallet scarf hat glove sock shirt jacket blanket pillow towel " +
		"kettle spoon fork knife pan pot jar bottle box crate rug mirror brush comb soap")
	extras = []string{"gift wrap", "express", "2 pcs", "set of 4", "100% cotton", "size_L", "café edition",
		"Übergröße", "naïve art", "back\\slash", "repair", "refill", "bundle", "sample", "rush order"}
)

const rareWord = "zanzibar"

// description is invoice i's description: deterministic in i.
func description(i int) string {
	r := rand.New(rand.NewPCG(uint64(i), 40))
	var b strings.Builder
	fmt.Fprintf(&b, "Order %d: ", i)
	for k := range 1 + r.IntN(3) {
		if k > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%d %s %s", 1+r.IntN(4), adjectives[r.IntN(len(adjectives))], nouns[r.IntN(len(nouns))])
	}
	if r.IntN(4) == 0 {
		b.WriteString(" (" + extras[r.IntN(len(extras))] + ")")
	}
	if i%1_000_000 == 777_780 { // seed-1's, as i%20 is 0 (seedOne)
		b.WriteString(", a " + rareWord + " spice box")
	}
	return b.String()
}

// seed creates the merchants and n invoices over the past year, through the store.
// Every 100th invoice is paid when it is created, every 1,000th (offset 50) is
// underpaid, every 200th (offset 7) canceled; 30 % have one of 50,000 customers.
// With from above 0 it continues a seed that stopped there: the merchants exist,
// and invoices from..n-1 are created.
func seed(ctx context.Context, cfg store.Config, n, from, merchants, workers int) error {
	end := time.Now().Add(-time.Hour)
	start := end.Add(-seedYear)
	step := seedYear / time.Duration(n)
	var created atomic.Int64
	created.Store(int64(from))
	cfg.Now = func() time.Time { return start.Add(time.Duration(created.Load()) * step) }
	db, err := open(ctx, cfg)
	if err != nil {
		return err
	}
	defer db.Close()
	ps := make([]kassa.Principal, merchants)
	for k := range ps {
		m, err := db.MerchantByEmail(ctx, seedEmail(k+1))
		if from == 0 {
			m, err = db.CreateMerchant(ctx, kassa.MerchantCreate{Name: fmt.Sprintf("Seed %d", k+1), Email: seedEmail(k + 1), Password: "seed-password-1"})
		}
		if err != nil {
			return fmt.Errorf("merchant %d: %w", k+1, err)
		}
		ps[k] = kassa.Principal{MerchantID: m.ID, Environment: kassa.Devnet, Scope: kassa.ScopeMerchant}
	}
	// As serve does: SQLite's description index is filled beside the creates.
	indexing, stopIndexing := context.WithCancel(ctx)
	defer stopIndexing()
	indexed := make(chan struct{})
	go func() { defer close(indexed); worker.DescriptionIndex(indexing, db, nil) }()
	began := time.Now()
	var (
		next     atomic.Int64
		wg       sync.WaitGroup
		errOnce  sync.Once
		firstErr error
	)
	fail := func(err error) { errOnce.Do(func() { firstErr = err }) }
	next.Store(int64(from))
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for firstErr == nil {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				created.Add(1)
				if err := seedOne(ctx, db, ps, i); err != nil {
					fail(fmt.Errorf("invoice %d: %w", i, err))
					return
				}
				if i%100_000 == 0 && i > 0 {
					fmt.Printf("  %d invoices, %.0f a second\n", i, float64(i-from)/time.Since(began).Seconds())
				}
			}
		}()
	}
	wg.Wait()
	if firstErr != nil {
		return firstErr
	}
	took := time.Since(began)
	stopIndexing()
	<-indexed
	fmt.Printf("seeded %d invoices of %d merchants in %s (%.0f a second)\n", n-from, merchants, took.Round(time.Second), float64(n-from)/took.Seconds())
	return catchUp(ctx, db)
}

// seedOne creates invoice i, and pays, part-pays or cancels it by its number.
func seedOne(ctx context.Context, db *store.DB, ps []kassa.Principal, i int) error {
	p := ps[0] // 70 %
	if k := i % 20; k >= 14 && len(ps) > 1 {
		p = ps[1+k%(len(ps)-1)]
	}
	desc := description(i)
	day := 24 * time.Hour // longer than the seeding clock moves while the workers pay or cancel
	c := kassa.InvoiceCreate{Amount: kassa.Millis(1_000 + (i%5_000)*37), Description: &desc, ExpiresIn: &day}
	if i%10 < 3 {
		cust := fmt.Sprintf("cust_%d", i%50_000)
		c.CustomerID = &cust
	}
	inv, _, err := invoicing.Over(db).CreateInvoice(ctx, p, c, nil)
	if err != nil {
		return err
	}
	pay := func(usd kassa.Millis) error {
		_, _, err := db.IngestPayment(ctx, kassa.PaymentInput{MerchantID: p.MerchantID, InvoiceID: inv.ID, Network: "bsc-testnet",
			TxHash: fmt.Sprintf("0x%064x", i), TokenID: 1, FromAddress: "0x52908400098527886E0F7030069857D2E4169EE7",
			AmountUnits: big.NewInt(int64(usd)), AmountUSD: usd, Confirmations: 3, Confirmed: true})
		return err
	}
	switch {
	case i%100 == 0:
		return pay(inv.Amount)
	case i%1_000 == 50:
		return pay(inv.Amount / 2)
	case i%200 == 7:
		_, err := invoicing.Over(db).CancelInvoice(ctx, p, inv.ID)
		return err
	}
	return nil
}
