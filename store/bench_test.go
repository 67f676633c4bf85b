package store_test

import (
	"context"
	"fmt"
	"math/big"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/store"
	"github.com/kassapay/kassa/store/storetest"
)

// benchEngines runs b once per engine with a fresh store and one merchant.
func benchEngines(b *testing.B, fn func(b *testing.B, db *store.DB, m *kassa.Merchant)) {
	benchEnginesConfig(b, func(b *testing.B, db *store.DB, m *kassa.Merchant, _ store.Config) { fn(b, db, m) })
}

// benchEnginesConfig is benchEngines that also hands fn the store's Config.
func benchEnginesConfig(b *testing.B, fn func(b *testing.B, db *store.DB, m *kassa.Merchant, cfg store.Config)) {
	configs := map[string]func(testing.TB) store.Config{"sqlite": storetest.SQLiteConfig, "postgres": storetest.PostgresConfig}
	for _, name := range []string{"sqlite", "postgres"} {
		b.Run(name, func(b *testing.B) {
			cfg := configs[name](b)
			db := storetest.Open(b, cfg)
			m, err := db.CreateMerchant(context.Background(), kassa.MerchantCreate{Name: "Bench", Email: "bench@example.com", Password: "correct horse"})
			if err != nil {
				b.Fatal(err)
			}
			fn(b, db, m, cfg)
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
				if _, _, err := db.CreateInvoice(context.Background(), p, kassa.InvoiceCreate{Amount: 12_500}, nil); err != nil {
					b.Error(err)
					return
				}
			}
		})
	})
}

// BenchmarkCreateInvoiceIdempotent measures a create as POST /api/v1/invoices
// makes it below HTTP: the idempotency key looked up (a read), then the invoice,
// its event and the sealed response saved under the key in one transaction. 16
// callers on two cores, as the HTTP benchmark's 16 connections.
func BenchmarkCreateInvoiceIdempotent(b *testing.B) {
	benchEngines(b, func(b *testing.B, db *store.DB, m *kassa.Merchant) {
		p := principal(m)
		sealer := kassa.NewResponseSealer([]byte("bench secret"))
		render := func(ci kassa.CreatedInvoice) (int, []byte, error) {
			body, err := kassa.MarshalJSON(map[string]any{"invoice_id": ci.Invoice.ID, "session_token": ci.SessionToken, "invoice": ci.Invoice})
			return 201, body, err
		}
		desc := "Order 1234: two coffees"
		c := kassa.InvoiceCreate{Amount: 12_500, Description: &desc, Metadata: []byte(`{"order_id":"1234"}`)}
		b.SetParallelism(8)
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				s := kassa.IdempotencyScope{MerchantID: m.ID, Environment: kassa.Devnet, Route: "POST /api/v1/invoices",
					Key: kassa.NewUUID(), Owner: kassa.NewClaimOwner()}
				if rec, err := db.IdempotencyRecord(context.Background(), s); err != nil || rec != nil {
					b.Errorf("record %v, %v", rec, err)
					return
				}
				save := &kassa.SavedResponse[kassa.CreatedInvoice]{Scope: s, Fingerprint: "fp", Render: render,
					Seal: func(body []byte) []byte { return sealer.Seal(s, body) }}
				if _, _, err := db.CreateInvoice(context.Background(), p, c, save); err != nil {
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
			if _, _, err := db.CreateInvoice(context.Background(), principal(m), kassa.InvoiceCreate{Amount: 12_500}, nil); err != nil {
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

// BenchmarkListInvoicesDeep measures a page of ten after a cursor 9,000 invoices
// deep into 10,000: the cursor is a range of the list index, so a deep page costs
// about what the first does. The tables are analyzed first, as autovacuum would
// have done: PostgreSQL plans a table it has no statistics of as nearly empty.
func BenchmarkListInvoicesDeep(b *testing.B) {
	benchEnginesConfig(b, func(b *testing.B, db *store.DB, m *kassa.Merchant, cfg store.Config) {
		const n, depth = 10_000, 9_000
		var made atomic.Int64
		ids := make([]string, n)
		var wg sync.WaitGroup
		for range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := made.Add(1) - 1; i < n; i = made.Add(1) - 1 {
					inv, _, err := db.CreateInvoice(context.Background(), principal(m), kassa.InvoiceCreate{Amount: 12_500}, nil)
					if err != nil {
						b.Error(err)
						return
					}
					ids[i] = inv.ID
				}
			}()
		}
		wg.Wait()
		if _, err := storetest.RawDB(b, cfg).Exec("ANALYZE"); err != nil {
			b.Fatal(err)
		}
		page, _, err := db.Invoices(context.Background(), kassa.InvoiceFilter{MerchantID: m.ID, Limit: 100})
		if err != nil || len(page) != 100 {
			b.Fatalf("first page: %d, %v", len(page), err)
		}
		// The cursor: the invoice depth places from the newest, found by paging once.
		cursor := page[len(page)-1].ID
		for seen := 100; seen < depth; seen += 100 {
			if page, _, err = db.Invoices(context.Background(), kassa.InvoiceFilter{MerchantID: m.ID, Limit: 100, StartingAfter: cursor}); err != nil {
				b.Fatal(err)
			}
			cursor = page[len(page)-1].ID
		}
		b.ResetTimer()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				page, _, err := db.Invoices(context.Background(), kassa.InvoiceFilter{MerchantID: m.ID, Limit: 10, StartingAfter: cursor})
				if err != nil || len(page) != 10 {
					b.Errorf("deep page: %d, %v", len(page), err)
					return
				}
			}
		})
	})
}

// BenchmarkIngestPayment measures receipts ingested (receipt, invoice recompute and
// events in one transaction) spread over 100 invoices, with parallel callers.
func BenchmarkIngestPayment(b *testing.B) {
	benchEngines(b, func(b *testing.B, db *store.DB, m *kassa.Merchant) {
		invs := make([]*kassa.Invoice, 100)
		for i := range invs {
			inv, _, err := db.CreateInvoice(context.Background(), principal(m), kassa.InvoiceCreate{Amount: 1_000_000_000}, nil)
			if err != nil {
				b.Fatal(err)
			}
			invs[i] = inv
		}
		var n atomic.Int64
		b.ResetTimer()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				i := n.Add(1)
				inv := invs[i%int64(len(invs))]
				_, _, err := db.IngestPayment(context.Background(), kassa.PaymentInput{MerchantID: m.ID, InvoiceID: inv.ID,
					Network: "bsc-testnet", TxHash: fmt.Sprintf("0x%064x", i), TokenID: 1, FromAddress: "0x52908400098527886E0F7030069857D2E4169EE7",
					AmountUnits: big.NewInt(1000), AmountUSD: 1, Confirmations: 3, Confirmed: true})
				if err != nil {
					b.Error(err)
					return
				}
			}
		})
	})
}
