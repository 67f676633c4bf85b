package store_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/internal/invoicejson"
	"github.com/kassapay/kassa/invoicing"
	"github.com/kassapay/kassa/payment"
	"github.com/kassapay/kassa/sealed"
	"github.com/kassapay/kassa/store"
	"github.com/kassapay/kassa/store/storetest"
)

// storageReportEnv gates TestStorageReport; storageNEnv sets how many invoices it
// creates (default 5,000).
const (
	storageReportEnv = "KASSA_STORAGE_REPORT"
	storageNEnv      = "KASSA_STORAGE_N"
)

// TestStorageReport measures the bytes an invoice takes on each engine, created the
// way POST /api/v1/invoices creates it (the key looked up, then the invoice, its
// invoice.created event and its sealed saved response in one transaction), per
// table and index, at five stages: created; a day later with the idempotency
// records pruned, in use and compacted; with the sweeper's expiry written (two
// more events each); and after the events' retention. Then the what-ifs of
// whatIfReport. It only reports (go test -v):
//
//	KASSA_STORAGE_REPORT=1 go test ./store/ -run TestStorageReport -v
func TestStorageReport(t *testing.T) {
	if os.Getenv(storageReportEnv) != "1" {
		t.Skip(storageReportEnv + "=1 runs the storage report")
	}
	n := 5000
	if v, err := strconv.Atoi(os.Getenv(storageNEnv)); err == nil && v > 0 {
		n = v
	}
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		f := newFixture(t, cfg)
		sz := sizer{engine: f.db.Engine(), raw: storetest.RawDB(t, cfg)}
		base := sz.measure(t)
		sealer := sealed.NewResponses([]byte("storage report server secret, 32+ bytes"))
		bodies := createLikeAPI(t, f, sealer, n)
		var stages []stage
		stages = append(stages, stage{"created", sz.measure(t)})
		cols := columnReport(t, sz)
		whatIf := whatIfReport(t, sz, n)

		f.clock.Advance(kassa.IdempotencyTTL + time.Minute)
		pruned, err := f.db.PruneIdempotencyKeys(f.ctx)
		must(t, err)
		if pruned != int64(n) {
			t.Fatalf("pruned %d idempotency records, want %d", pruned, n)
		}
		stages = append(stages, stage{"+24 h, keys pruned", sz.measure(t)})
		sz.compact(t)
		stages = append(stages, stage{"+24 h, compacted", sz.measure(t)})

		for done := 0; done < n; {
			k, err := f.db.ExpireInvoices(f.ctx, 1000)
			must(t, err)
			if k == 0 {
				t.Fatalf("expired %d of %d invoices", done, n)
			}
			done += k
		}
		sz.compact(t)
		stages = append(stages, stage{"+ swept (3 events), compacted", sz.measure(t)})

		f.clock.Advance(kassa.EventRetention + time.Hour)
		_, err = f.db.PruneEvents(f.ctx, f.clock.Now().Add(-kassa.EventRetention))
		must(t, err)
		sz.compact(t)
		stages = append(stages, stage{"+30 d, events pruned, compacted", sz.measure(t)})

		t.Logf("%s: bytes per invoice (%d invoices, empty database subtracted)\n%s", f.db.Engine(), n, storageTable(base, stages, n))
		t.Logf("%s: %s\n%s", f.db.Engine(), bodies, cols)
		t.Logf("%s: what-ifs, bytes per row of copies filled in creation order\n%s", f.db.Engine(), whatIf)
	})
}

// bodyStats adds up the create responses saved under the idempotency keys.
type bodyStats struct{ n, rendered, sealed int64 }

func (b bodyStats) String() string {
	return "saved responses, mean bytes: rendered " + strconv.FormatInt(b.rendered/b.n, 10) +
		", sealed (deflated, the invoice by reference to its event; stored) " + strconv.FormatInt(b.sealed/b.n, 10)
}

// createLikeAPI creates n invoices as POST /api/v1/invoices does under kassa-load's
// body, from 8 goroutines: look up a fresh UUID key, then create the invoice with its
// response rendered, sealed and saved in the same transaction. The clock moves 1 ms
// per invoice so ids and created_at grow as they do under load.
func createLikeAPI(t *testing.T, f *fixture, sealer *sealed.Responses, n int) bodyStats {
	t.Helper()
	signer := payment.NewSessionSigner([]byte("storage report server secret, 32+ bytes"))
	body := `{"amount_usd": 12.5, "description": "load test", "metadata": {"run": "kassa-load"}}`
	fp := sha256.Sum256([]byte("POST\n/api/v1/invoices\njson\n" + body))
	var (
		mu    sync.Mutex
		stats bodyStats
		wg    sync.WaitGroup
		next  = make(chan struct{}, n)
	)
	for range n {
		next <- struct{}{}
	}
	close(next)
	for range 8 {
		wg.Go(func() {
			for range next {
				f.clock.Advance(time.Millisecond)
				scope := kassa.IdempotencyScope{MerchantID: f.m.ID, Environment: kassa.Devnet,
					Route: "POST /api/v1/invoices", Key: kassa.NewUUID(), Owner: kassa.NewClaimOwner()}
				// As the API does: the key looked up, then the record inserted with the invoice.
				if rec, err := f.db.IdempotencyRecord(f.ctx, scope); err != nil || rec != nil {
					t.Errorf("lookup: %v %v", rec, err)
					return
				}
				var rendered, stored []byte
				save := &kassa.SavedResponse[kassa.CreatedInvoice]{Scope: scope, Fingerprint: hex.EncodeToString(fp[:]),
					Render: func(ci kassa.CreatedInvoice) (int, []byte, error) {
						b, err := kassa.MarshalJSON(createdResponse(signer, ci))
						rendered = append(b, '\n')
						return 201, rendered, err
					},
					Seal: func(b []byte) []byte { stored = sealer.Seal(scope, b); return stored },
					SealRef: func(b []byte, ref *kassa.Event) []byte {
						stored = sealer.SealRef(scope, b, ref)
						return stored
					}}
				desc := "load test"
				if _, _, err := invoicing.Over(f.db).CreateInvoice(context.Background(), principal(f.m), kassa.InvoiceCreate{Amount: 12_500,
					Description: &desc, Metadata: []byte(`{"run":"kassa-load"}`)}, save); err != nil {
					t.Errorf("create: %v", err)
					return
				}
				mu.Lock()
				stats.n++
				stats.rendered += int64(len(rendered))
				stats.sealed += int64(len(stored))
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	return stats
}

// createdResponse mirrors merchantapi's invoiceCreated, the body a create answers
// and saves (its payment URL on a production-like public URL).
func createdResponse(signer payment.SessionSigner, ci kassa.CreatedInvoice) any {
	sig := signer.Sign(ci.SessionToken)
	return struct {
		InvoiceID             string                 `json:"invoice_id"`
		PaymentURL            string                 `json:"payment_url"`
		ExpiresAt             string                 `json:"expires_at"`
		SessionToken          string                 `json:"session_token"`
		Signature             string                 `json:"signature"`
		PaymentSessionHeaders payment.SessionHeaders `json:"payment_session_headers"`
		Invoice               invoicejson.Expanded   `json:"invoice"`
	}{ci.Invoice.ID, signer.PaymentURL("https://pay.example.com", ci.Invoice.ID, ci.SessionToken),
		kassa.FormatTime(ci.Invoice.ExpiresAt), ci.SessionToken, sig,
		payment.SessionHeaders{SessionToken: ci.SessionToken, Signature: sig}, invoicejson.Expanded{Invoice: ci.Invoice}}
}
