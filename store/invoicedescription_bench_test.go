package store_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/invoicing"
	"github.com/kassapay/kassa/store"
	"github.com/kassapay/kassa/store/storetest"
)

// BenchmarkIndexDescriptions measures SQLite's description index filled in
// rounds of 500 invoices, as worker.DescriptionIndex does, over 20,000 invoices
// with descriptions like the seeding tool's; ns/op is one invoice indexed.
func BenchmarkIndexDescriptions(b *testing.B) {
	ctx := context.Background()
	db := storetest.Open(b, storetest.SQLiteConfig(b))
	m, err := db.CreateMerchant(ctx, kassa.MerchantCreate{Name: "Bench", Email: "bench@example.com", Password: "correct horse"})
	if err != nil {
		b.Fatal(err)
	}
	p := kassa.Principal{MerchantID: m.ID, Environment: kassa.Devnet, Scope: kassa.ScopeMerchant}
	const n = 20_000
	adjectives := []string{"blue", "red", "ceramic", "wooden", "steel", "vintage", "organic", "striped"}
	nouns := []string{"mug", "teapot", "lamp", "chair", "basket", "candle", "scarf", "kettle", "mirror"}
	for i := range n {
		d := fmt.Sprintf("Order %d: %d %s %s, 1 %s %s", i, 1+i%4, adjectives[i%len(adjectives)], nouns[i%len(nouns)],
			adjectives[(i/7)%len(adjectives)], nouns[(i/3)%len(nouns)])
		if _, _, err := invoicing.Over(db).CreateInvoice(ctx, p, kassa.InvoiceCreate{Amount: 1000, Description: &d}, nil); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	for i := 0; i < b.N; {
		if i%n == 0 {
			b.StopTimer()
			store.ResetDescriptionIndex(b, db)
			b.StartTimer()
		}
		k, err := db.IndexDescriptions(ctx, min(500, b.N-i, n-i%n))
		if err != nil {
			b.Fatal(err)
		}
		if k == 0 {
			b.Fatal("a round indexed nothing")
		}
		i += k
	}
}
