package store_test

import (
	"context"
	"testing"

	"kassa"
	"kassa/store"
	"kassa/store/storetest"
)

// benchEngines runs b once per engine with a fresh store and one merchant.
func benchEngines(b *testing.B, fn func(b *testing.B, db *store.DB, m *kassa.Merchant)) {
	configs := map[string]func(testing.TB) store.Config{"sqlite": storetest.SQLiteConfig, "postgres": storetest.PostgresConfig}
	for _, name := range []string{"sqlite", "postgres"} {
		b.Run(name, func(b *testing.B) {
			db := storetest.Open(b, configs[name](b))
			m, err := db.CreateMerchant(context.Background(), kassa.MerchantCreate{Name: "Bench", Email: "bench@example.com", Password: "correct horse"})
			if err != nil {
				b.Fatal(err)
			}
			fn(b, db, m)
		})
	}
}

// BenchmarkCreateInvoice measures one invoice and its event written, with parallel
// callers so SQLite's group commit can share commits as it does under HTTP load.
func BenchmarkCreateInvoice(b *testing.B) {
	benchEngines(b, func(b *testing.B, db *store.DB, m *kassa.Merchant) {
		p := principal(m)
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				if _, _, err := db.CreateInvoice(context.Background(), p, kassa.InvoiceCreate{Amount: 12_500}); err != nil {
					b.Error(err)
					return
				}
			}
		})
	})
}

// BenchmarkListInvoices measures reading the newest ten of 1,000 invoices.
func BenchmarkListInvoices(b *testing.B) {
	benchEngines(b, func(b *testing.B, db *store.DB, m *kassa.Merchant) {
		for i := 0; i < 1000; i++ {
			if _, _, err := db.CreateInvoice(context.Background(), principal(m), kassa.InvoiceCreate{Amount: 12_500}); err != nil {
				b.Fatal(err)
			}
		}
		b.ResetTimer()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				if _, _, err := db.Invoices(context.Background(), kassa.InvoiceFilter{MerchantID: m.ID, Limit: 10}); err != nil {
					b.Error(err)
					return
				}
			}
		})
	})
}
