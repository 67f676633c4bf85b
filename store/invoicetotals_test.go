package store_test

import (
	"database/sql"
	"errors"
	"fmt"
	"math/big"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/invoicing"
	"github.com/kassapay/kassa/store"
	"github.com/kassapay/kassa/store/storetest"
)

// scanTotals is the reference for InvoiceTotals: the plain scan of every matching
// invoice, grouped by its effective status at now.
func scanTotals(t *testing.T, raw *sql.DB, f kassa.InvoiceTotalsFilter, now time.Time) map[kassa.InvoiceStatus]kassa.StatusTotal {
	t.Helper()
	conds, args := scanWhere(f, now)
	rows, err := raw.Query(`SELECT (CASE WHEN status IN ('unpaid', 'underpaid') AND expires_at <= $1
		AND amount_pending = 0 THEN 'expired' ELSE status END) AS st, COUNT(*),
		CAST(COALESCE(SUM(amount), 0) AS BIGINT), CAST(COALESCE(SUM(amount_paid), 0) AS BIGINT)
		FROM invoices WHERE `+conds+" GROUP BY 1", args...)
	must(t, err)
	defer rows.Close()
	out := map[kassa.InvoiceStatus]kassa.StatusTotal{}
	for rows.Next() {
		var (
			st         string
			n, a, paid int64
		)
		must(t, rows.Scan(&st, &n, &a, &paid))
		out[kassa.InvoiceStatus(st)] = kassa.StatusTotal{Count: n, Amount: kassa.Millis(a), AmountPaid: kassa.Millis(paid)}
	}
	must(t, rows.Err())
	return out
}

// scanAttention is the reference for CountInvoices with NeedsAttention: the plain
// scan of the merchant's invoices.
func scanAttention(t *testing.T, raw *sql.DB, f kassa.InvoiceTotalsFilter, now time.Time) int64 {
	t.Helper()
	conds, args := scanWhere(f, now)
	var n int64
	must(t, raw.QueryRow(`SELECT COUNT(*) FROM invoices WHERE `+conds+` AND ((CASE WHEN status IN ('unpaid', 'underpaid')
		AND expires_at <= $1 AND amount_pending = 0 THEN 'expired' ELSE status END) = 'underpaid'
		OR id IN (SELECT invoice_id FROM receipts WHERE status = 'manual_retry'))`, args...).Scan(&n))
	return n
}

// scanWhere is the reference's WHERE for f; $1 is now.
func scanWhere(f kassa.InvoiceTotalsFilter, now time.Time) (string, []any) {
	args := []any{now.UnixMicro(), f.MerchantID}
	conds := []string{"merchant_id = $2"}
	add := func(cond string, v any) {
		args = append(args, v)
		conds = append(conds, fmt.Sprintf(cond, len(args)))
	}
	if f.Environment != nil {
		add("environment = $%d", string(*f.Environment))
	}
	if f.CustomerID != nil {
		add("customer_id = $%d", *f.CustomerID)
	}
	if f.CreatedGTE != nil {
		add("created_at >= $%d", f.CreatedGTE.UnixMicro())
	}
	if f.CreatedLTE != nil {
		add("created_at <= $%d", f.CreatedLTE.UnixMicro())
	}
	return strings.Join(conds, " AND "), args
}

// TestInvoiceTotalsMatchScan checks InvoiceTotals and the needs-attention count
// against the plain scan over random invoices, payments (pending, confirmed,
// partial, late), cancels, expiries and expiry runs, with the clock moving
// between writes so that invoices expire between them, under random filters
// (environment, customer, dates at and off day boundaries).
func TestInvoiceTotalsMatchScan(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		f := newFixture(t, cfg)
		raw := storetest.RawDB(t, cfg)
		r := rand.New(rand.NewPCG(40, 1))
		ms := []*kassa.Merchant{f.m, f.merchant(t, "other@example.com")}
		customers := []string{"alice", "bob", "carol"}
		type made struct {
			m   *kassa.Merchant
			inv *kassa.Invoice
		}
		var invs []made
		start := f.clock.Now()
		pays := 0
		pay := func(x made, amount kassa.Millis, confirmed bool, hash string) {
			_, _, err := f.db.IngestPayment(f.ctx, kassa.PaymentInput{MerchantID: x.m.ID, InvoiceID: x.inv.ID, Network: "bsc-testnet",
				TxHash: hash, TokenID: 1, FromAddress: "0x52908400098527886E0F7030069857D2E4169EE7",
				AmountUnits: big.NewInt(int64(amount)), AmountUSD: amount, Confirmations: 3, Confirmed: confirmed})
			must(t, err)
		}
		pending := map[string]made{} // tx hash: the invoice it pays, not confirmed yet
		for step := range 300 {
			switch k := r.IntN(10); {
			case k == 0:
				// A burst of concurrent creates of both merchants, with different
				// expiries: PostgreSQL writes them in shared batches.
				var wg sync.WaitGroup
				burst := make([]made, 12)
				for i := range burst {
					m := ms[i%len(ms)]
					exp := time.Duration(30+(i/2)%2*170) * time.Minute // two expiry hours a merchant, shared
					wg.Add(1)
					go func() {
						defer wg.Done()
						inv, _, err := invoicing.Over(f.db).CreateInvoice(f.ctx, principal(m), kassa.InvoiceCreate{Amount: kassa.Millis(10 + i), ExpiresIn: &exp}, nil)
						if err != nil {
							t.Errorf("CreateInvoice: %v", err)
							return
						}
						burst[i] = made{m, inv}
					}()
				}
				wg.Wait()
				if t.Failed() {
					t.FailNow()
				}
				invs = append(invs, burst...)
			case k < 5 || len(invs) == 0:
				m := ms[r.IntN(len(ms))]
				exp := time.Duration(1+r.IntN(120)) * time.Minute
				if r.IntN(2) == 0 {
					exp = time.Duration(1+r.IntN(40*60)) * time.Minute
				}
				inv := f.invoice(t, m, kassa.Millis(10+r.IntN(100_000)), func(c *kassa.InvoiceCreate) {
					c.ExpiresIn = &exp
					if r.IntN(2) == 0 {
						c.CustomerID = &customers[r.IntN(len(customers))]
					}
				})
				invs = append(invs, made{m, inv})
			case k < 7:
				x := invs[r.IntN(len(invs))]
				if r.IntN(2) == 0 { // a recent one, likely still open
					x = invs[len(invs)-1-r.IntN(min(len(invs), 4))]
				}
				pays++
				hash := fmt.Sprintf("0x%064x", pays)
				amount := x.inv.Amount / kassa.Millis(1+r.IntN(3))
				confirmed := r.IntN(3) > 0
				pay(x, amount, confirmed, hash)
				if !confirmed {
					pending[hash] = x
				}
			case k < 8:
				for hash, x := range pending {
					pay(x, x.inv.Amount/kassa.Millis(1+r.IntN(3)), true, hash)
					delete(pending, hash)
					break
				}
			case k < 9:
				x := invs[r.IntN(len(invs))]
				// Only an unpaid invoice without receipts cancels; the others are a conflict.
				if _, err := invoicing.Over(f.db).CancelInvoice(f.ctx, principal(x.m), x.inv.ID); err != nil {
					var e *kassa.Error
					if !errors.As(err, &e) || e.Kind != kassa.KindConflict {
						t.Fatalf("CancelInvoice: %v", err)
					}
				}
			default:
				_, err := f.db.ExpireInvoices(f.ctx, 1+r.IntN(3))
				must(t, err)
			}
			// Minutes mostly, across an hour or a day at times.
			f.clock.Advance([]time.Duration{0, time.Duration(r.IntN(20)) * time.Minute, time.Duration(r.IntN(90)) * time.Minute,
				time.Duration(r.IntN(30)) * time.Hour}[r.IntN(4)])
			if step%10 != 9 {
				continue
			}
			now := f.clock.Now()
			span := now.Sub(start) + 48*time.Hour
			at := func() *time.Time {
				switch r.IntN(4) {
				case 0:
					return nil
				case 1: // a day boundary, or a microsecond off one
					d := start.Add(-24 * time.Hour).Add(time.Duration(r.Int64N(int64(span)))).Truncate(24 * time.Hour)
					return ptr(d.Add(time.Duration(r.IntN(3)-1) * time.Microsecond))
				default:
					return ptr(start.Add(-24 * time.Hour).Add(time.Duration(r.Int64N(int64(span)))))
				}
			}
			for range 8 {
				tf := kassa.InvoiceTotalsFilter{MerchantID: ms[r.IntN(len(ms))].ID, CreatedGTE: at(), CreatedLTE: at()}
				switch r.IntN(3) {
				case 0:
					tf.Environment = ptr(kassa.Devnet)
				case 1:
					tf.Environment = ptr(kassa.Mainnet)
				}
				if r.IntN(4) == 0 {
					tf.CustomerID = &customers[r.IntN(len(customers))]
				}
				got, err := f.db.InvoiceTotals(f.ctx, tf)
				must(t, err)
				want := scanTotals(t, raw, tf, now)
				for _, s := range kassa.InvoiceStatuses {
					if got.ByStatus[s] != want[s] {
						t.Fatalf("step %d, filter %s: totals[%s] = %+v, want %+v (the scan)", step, describe(tf), s, got.ByStatus[s], want[s])
					}
				}
				n, err := f.db.CountInvoices(f.ctx, kassa.InvoiceFilter{MerchantID: tf.MerchantID, Environment: tf.Environment,
					CustomerID: tf.CustomerID, CreatedGTE: tf.CreatedGTE, CreatedLTE: tf.CreatedLTE, NeedsAttention: true})
				must(t, err)
				if wantN := scanAttention(t, raw, tf, now); n != wantN {
					t.Fatalf("step %d, filter %s: needing attention = %d, want %d (the scan)", step, describe(tf), n, wantN)
				}
			}
		}
	})
}

// describe prints a totals filter for a failure message.
func describe(f kassa.InvoiceTotalsFilter) string {
	s := fmt.Sprintf("merchant %d", f.MerchantID)
	if f.Environment != nil {
		s += " env " + string(*f.Environment)
	}
	if f.CustomerID != nil {
		s += " customer " + *f.CustomerID
	}
	if f.CreatedGTE != nil {
		s += " from " + f.CreatedGTE.Format(time.RFC3339Nano)
	}
	if f.CreatedLTE != nil {
		s += " to " + f.CreatedLTE.Format(time.RFC3339Nano)
	}
	return s
}
