package api_test

import (
	"context"
	"fmt"
	"math/big"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/store/storetest"
)

// TestDashboardInvoicesPerf times GET /dashboard/invoices (the handler alone:
// session, store query, template) on SQLite with KASSA_PERF_INVOICES invoices
// (100,000 for docs/performance.md), seeded through the store. It skips unless
// that variable is set: scripts/bench-dashboard.sh runs it. KASSA_PERF_DATA_DIR
// keeps the database.
func TestDashboardInvoicesPerf(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("KASSA_PERF_INVOICES"))
	if n < 1000 {
		t.Skip("set KASSA_PERF_INVOICES (at least 1000) to time the invoice list")
	}
	cfg := storetest.SQLiteConfig(t)
	if dir := os.Getenv("KASSA_PERF_DATA_DIR"); dir != "" {
		cfg.DataDir = dir // kept, for EXPLAIN QUERY PLAN with the sqlite3 shell
	}
	e := newEnv(t, cfg)
	m := e.newMerchant(false)
	start := time.Now()
	seed := seedPerfInvoices(t, e, m, n)
	t.Logf("seeded %d invoices in %s", n, time.Since(start).Round(time.Second))

	b := e.browser()
	b.signIn(m)
	u, _ := url.Parse(e.srv.URL + "/dashboard/invoices")
	cookies := b.client.Jar.Cookies(u)
	cases := []struct{ name, query string }{
		{"first page", ""},
		{"status paid (1 in 100)", "status=paid"},
		{"needs attention (5 underpaid, the oldest)", "attention=1"},
		{"q = invoice id (the oldest)", "q=" + seed.oldest},
		{"q = a common description word (1 in 10)", "q=teapot"},
		{"q = a rare description word (the oldest)", "q=zanzibar"},
		{"q = tx hash (an old payment)", "q=" + seed.txHash},
		{"page 2 (cursor)", "starting_after=" + seed.cursor},
	}
	t.Logf("| request | rows | p50 | p99 | max |")
	for _, c := range cases {
		var times []time.Duration
		rows := 0
		for i := range 220 {
			req := httptest.NewRequest("GET", "/dashboard/invoices?"+c.query, nil)
			for _, ck := range cookies {
				req.AddCookie(ck)
			}
			rec := httptest.NewRecorder()
			t0 := time.Now()
			e.srv.Config.Handler.ServeHTTP(rec, req)
			d := time.Since(t0)
			if rec.Code != http.StatusOK {
				t.Fatalf("%s: status %d\n%.2000s", c.name, rec.Code, rec.Body.String())
			}
			if i >= 20 { // the first 20 warm the caches
				times = append(times, d)
			}
			rows = strings.Count(rec.Body.String(), `<td data-label="Status"><span class="badge`)
		}
		slices.Sort(times)
		t.Logf("| `%s` %s | %d | %s | %s | %s |", c.query, c.name, rows, ms(times[len(times)/2]), ms(times[len(times)*99/100]), ms(times[len(times)-1]))
	}
}

func ms(d time.Duration) string { return fmt.Sprintf("%.2f ms", float64(d.Microseconds())/1000) }

// seeded names invoices the searches look for.
type seeded struct{ oldest, txHash, cursor string }

// seedPerfInvoices creates n devnet invoices through the store, 8 writers at a time
// (SQLite's group commit batches their commits): every 10th says "teapot", the
// oldest alone "zanzibar"; every 100th is paid, 5 of the oldest are underpaid.
func seedPerfInvoices(t *testing.T, e *testEnv, m *merchant, n int) seeded {
	t.Helper()
	ctx := context.Background()
	p := kassa.Principal{MerchantID: m.m.ID, Environment: kassa.Devnet, Scope: kassa.ScopeMerchant}
	ids := make([]string, n)
	create := func(i int) {
		desc := fmt.Sprintf("Order %d: two ceramic mugs", i)
		switch {
		case i == 0:
			desc = "Order 0: a zanzibar spice box"
		case i%10 == 0:
			desc = fmt.Sprintf("Order %d: a blue teapot", i)
		}
		inv, _, err := e.db.CreateInvoice(ctx, p, kassa.InvoiceCreate{Amount: kassa.Millis(1000 + i), Description: &desc}, nil)
		if err != nil {
			t.Error(err)
			return
		}
		ids[i] = inv.ID
	}
	create(0) // the oldest
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 1 + w; i < n; i += 8 {
				create(i)
			}
		}()
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	payment := 0
	pay := func(i int, usd kassa.Millis) string {
		payment++
		hash := fmt.Sprintf("0x%064x", payment)
		_, _, err := e.db.IngestPayment(ctx, kassa.PaymentInput{MerchantID: m.m.ID, InvoiceID: ids[i], Network: "bsc-testnet",
			TxHash: hash, TokenID: 1, FromAddress: "0x52908400098527886E0F7030069857D2E4169EE7",
			AmountUnits: big.NewInt(1000), AmountUSD: usd, Confirmations: 3, Confirmed: true})
		if err != nil {
			t.Fatal(err)
		}
		return hash
	}
	for i := 1; i <= 5; i++ {
		pay(i, 500)
	}
	for i := 100; i < n; i += 100 {
		pay(i, kassa.Millis(1000+i))
	}
	return seeded{oldest: ids[0], txHash: pay(3, 1), cursor: ids[n-26]}
}
