package store

import (
	"context"
	"fmt"
	"strings"

	"github.com/kassapay/kassa"
)

// microsPerHour is one hour in the stores' unix-microsecond times: the width of
// invoice_totals.open_hour.
const microsPerHour = 60 * 60 * 1_000_000

// InvoiceTotals counts the merchant's invoices and sums their amounts per effective
// status. Every status is present in the result.
//
// Its cost does not grow with the number of invoices (docs/performance.md, "The
// store at size"): whole UTC days of created_at come from the rollup
// invoice_totals (migration 0031), kept by triggers in the transaction of every
// write to invoices, where open invoices with nothing pending are keyed by the
// hour they expire in, so those of the hours before the current one count as
// expired. Raw rows are read only for the open invoices expiring in the current
// hour (invoices_open_expiry) and for the partial days at the edges of a date
// filter. A customer filter reads the customer's invoices
// (invoices_merchant_customer) as the plain scan does. All of it is one
// statement, so it reads one snapshot.
func (db *DB) InvoiceTotals(ctx context.Context, f kassa.InvoiceTotalsFilter) (*kassa.InvoiceTotals, error) {
	if err := checkFilterText(f.CustomerID, nil, nil); err != nil {
		return nil, err
	}
	q := db.totalsQuery(f, micros(db.clock()))
	rows, err := db.r.QueryContext(ctx, q.sql, q.args...)
	if err != nil {
		return nil, fmt.Errorf("store: invoice totals: %w", err)
	}
	defer rows.Close()
	t := &kassa.InvoiceTotals{ByStatus: map[kassa.InvoiceStatus]kassa.StatusTotal{}}
	for _, s := range kassa.InvoiceStatuses {
		t.ByStatus[s] = kassa.StatusTotal{}
	}
	for rows.Next() {
		var (
			st            string
			n, sum, spaid int64
		)
		if err := rows.Scan(&st, &n, &sum, &spaid); err != nil {
			return nil, fmt.Errorf("store: invoice totals: %w", err)
		}
		t.ByStatus[kassa.InvoiceStatus(st)] = kassa.StatusTotal{Count: n, Amount: kassa.Millis(sum), AmountPaid: kassa.Millis(spaid)}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: invoice totals: %w", err)
	}
	return t, nil
}

// totalsQuery is InvoiceTotals' statement at time now (unix microseconds): the
// union of its parts, summed per effective status.
type totalsQuery struct {
	sql  string
	args []any
}

// totalsQuery builds the statement for f at now.
func (db *DB) totalsQuery(f kassa.InvoiceTotalsFilter, now int64) totalsQuery {
	w := &where{}
	nowP := w.arg(now)
	var lo, hi *int64
	if f.CreatedGTE != nil {
		v := micros(*f.CreatedGTE)
		lo = &v
	}
	if f.CreatedLTE != nil {
		v := micros(*f.CreatedLTE)
		hi = &v
	}
	var parts []string
	// rows is the plain scan of the invoices created in [from, to] (nil: open),
	// each with its effective status; extra conditions are ANDed.
	rows := func(from, to *int64, index string, extra ...string) string {
		c := append([]string{db.merchantCond(w, index, f.MerchantID)}, extra...)
		if f.Environment != nil {
			c = append(c, "environment = "+w.arg(string(*f.Environment)))
		}
		if f.CustomerID != nil {
			c = append(c, "customer_id = "+w.arg(*f.CustomerID))
		}
		if from != nil {
			c = append(c, "created_at >= "+w.arg(*from))
		}
		if to != nil {
			c = append(c, "created_at <= "+w.arg(*to))
		}
		return "SELECT " + effectiveStatusSQL(nowP) + " AS st, 1 AS n, amount AS a, amount_paid AS p FROM invoices" +
			db.indexedBy(index) + " WHERE " + strings.Join(c, " AND ")
	}
	days, whole := wholeDays(lo, hi)
	switch {
	case f.CustomerID != nil || !whole:
		// A customer's invoices, or less than a whole day: the rows themselves.
		parts = append(parts, rows(lo, hi, ""))
	default:
		if lo != nil && *lo < days.from*microsPerDay {
			end := days.from*microsPerDay - 1
			parts = append(parts, rows(lo, &end, ""))
		}
		if hi != nil && *hi >= (days.to+1)*microsPerDay {
			start := (days.to + 1) * microsPerDay
			parts = append(parts, rows(&start, hi, ""))
		}
		hour := floorDiv(now, microsPerHour)
		hourP := w.arg(hour)
		// The whole days from the rollup, but the open invoices expiring this hour.
		c := []string{"merchant_id = " + w.arg(f.MerchantID), "open_hour <> " + hourP}
		if f.Environment != nil {
			c = append(c, "environment = "+w.arg(string(*f.Environment)))
		}
		var from, to *int64
		if lo != nil {
			c = append(c, "day >= "+w.arg(days.from))
			v := days.from * microsPerDay
			from = &v
		}
		if hi != nil {
			c = append(c, "day <= "+w.arg(days.to))
			v := (days.to+1)*microsPerDay - 1
			to = &v
		}
		parts = append(parts, "SELECT CASE WHEN open_hour >= 0 AND open_hour < "+hourP+
			" THEN 'expired' ELSE status END AS st, invoices AS n, amount AS a, amount_paid AS p FROM invoice_totals WHERE "+
			strings.Join(c, " AND "))
		// The open invoices of those days expiring this hour, read through
		// invoices_open_expiry.
		parts = append(parts, rows(from, to, "invoices_open_expiry", "status IN ('unpaid', 'underpaid')", "amount_pending = 0",
			"expires_at >= "+w.arg(hour*microsPerHour), "expires_at < "+w.arg((hour+1)*microsPerHour)))
	}
	return totalsQuery{
		sql: "SELECT st, CAST(SUM(n) AS BIGINT), CAST(COALESCE(SUM(a), 0) AS BIGINT), CAST(COALESCE(SUM(p), 0) AS BIGINT) FROM (" +
			strings.Join(parts, " UNION ALL ") + ") t GROUP BY st",
		args: w.args,
	}
}

// merchantCond is the condition on merchant_id; when the read is to go through
// index, on SQLite it keeps the term from choosing another index (its planner
// has no statistics of how many invoices a merchant has).
func (db *DB) merchantCond(w *where, index string, merchantID int64) string {
	if index != "" && db.engine != EnginePostgres {
		return "+merchant_id = " + w.arg(merchantID)
	}
	return "merchant_id = " + w.arg(merchantID)
}

// indexedBy names the index a SQLite read must use (and fails the statement
// when it cannot); PostgreSQL's planner chooses by its statistics.
func (db *DB) indexedBy(index string) string {
	if index == "" || db.engine == EnginePostgres {
		return ""
	}
	return " INDEXED BY " + index
}

// dayRange is an inclusive range of UTC days, numbered from the Unix epoch.
type dayRange struct{ from, to int64 }

// wholeDays is the range of whole UTC days within [lo, hi] (unix microseconds;
// nil: unbounded, as far as any invoice), and false when there is none.
func wholeDays(lo, hi *int64) (dayRange, bool) {
	d := dayRange{from: -1 << 40, to: 1 << 40}
	if lo != nil {
		d.from = -floorDiv(-*lo, microsPerDay) // the first day starting at or after lo
	}
	if hi != nil {
		d.to = floorDiv(*hi+1, microsPerDay) - 1 // the last day ending at or before hi
	}
	return d, d.from <= d.to
}

// floorDiv is a/b rounded down (b > 0).
func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && a < 0 {
		q--
	}
	return q
}
