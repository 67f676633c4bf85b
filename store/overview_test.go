package store_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/commerce"
	"github.com/kassapay/kassa/delivery"
	"github.com/kassapay/kassa/report"
	"github.com/kassapay/kassa/store"
	"github.com/kassapay/kassa/store/storetest"
)

// days renders day totals as "2026-11-22 paid 2 $27.32 refunds 1 $16.82".
func days(ts []report.DayTotal) string {
	var out []string
	for _, d := range ts {
		out = append(out, fmt.Sprintf("%s paid %d %s refunds %d %s", d.Day.Format(time.DateOnly), d.Paid, d.Gross.USD(),
			d.Refunds, d.Refunded.USD()))
	}
	return strings.Join(out, "; ")
}

// TestVolumeByDay: paid invoices count on the day they were paid, and a commerce
// order's refund on the day it was made, whenever its invoice was paid (issue
// 37, finding 5); the money of an invoice that expired part paid goes back but
// was never volume, so its refund does not count either.
func TestVolumeByDay(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		f := newFixture(t, cfg)
		dayA := f.clock.Now().UTC().Truncate(24 * time.Hour)
		volume := func(since time.Time) string {
			t.Helper()
			ts, err := f.db.VolumeByDay(f.ctx, f.m.ID, kassa.Devnet, since)
			must(t, err)
			return days(ts)
		}
		before := f.invoice(t, f.m, 1_000, nil) // paid the day before: outside the window
		f.clock.Advance(-24 * time.Hour)
		f.payOrder(t, before, 1_000)
		f.clock.Advance(24 * time.Hour)

		inv := f.invoice(t, f.m, 10_000, nil)
		f.payOrder(t, inv, 10_000)
		o, oinv := f.newOrder(t, f.m, "cus_1")
		f.payOrder(t, oinv, oinv.Amount)
		other := f.merchant(t, "other@example.com")
		f.payOrder(t, f.invoice(t, other, 7_000, nil), 7_000)
		if got, want := volume(dayA), "2026-11-22 paid 2 $27.32 refunds 0 $0.00"; got != want {
			t.Fatalf("paid: %s, want %s", got, want)
		}

		// Two days on the order is cancelled: its refund (the total less the
		// commerce fee) counts then, and the day it was paid keeps its figure.
		f.clock.Advance(48 * time.Hour)
		_, err := f.db.ChangeOrder(f.ctx, f.m.ID, o.ID, func(o *commerce.Order, _ *kassa.Invoice, _ int, now time.Time) (commerce.InvoiceAction, error) {
			return commerce.InvoiceKeep, o.Advance(commerce.Step{To: commerce.OrderCancelled}, now)
		})
		must(t, err)
		// An order paid in part whose invoice expires: its money goes back whole.
		_, pinv := f.newOrder(t, f.m, "cus_2")
		f.payOrder(t, pinv, 5_000)
		f.clock.Advance(13 * time.Hour)
		_, err = f.db.ExpireInvoices(f.ctx, 100)
		must(t, err)

		want := "2026-11-22 paid 2 $27.32 refunds 0 $0.00; 2026-11-24 paid 0 $0.00 refunds 1 $16.82"
		if got := volume(dayA); got != want {
			t.Fatalf("after the refund: %s, want %s", got, want)
		}
		if got, want := volume(dayA.Add(24*time.Hour)), "2026-11-24 paid 0 $0.00 refunds 1 $16.82"; got != want {
			t.Fatalf("since the next day: %s, want %s", got, want)
		}
		// The refund sent: still counted once, on the day it was made.
		_, err = f.db.ChangeOrder(f.ctx, f.m.ID, o.ID, func(o *commerce.Order, _ *kassa.Invoice, _ int, now time.Time) (commerce.InvoiceAction, error) {
			return commerce.InvoiceKeep, o.Advance(commerce.Step{To: commerce.OrderRefunded, TxHash: "0xr"}, now)
		})
		must(t, err)
		if got := volume(dayA); got != want {
			t.Fatalf("refund sent: %s, want %s", got, want)
		}

		// An invoice refund of counted money counts on the day it is confirmed;
		// one of money set aside (paid after the invoice was paid) never was
		// volume and does not.
		_, err = createRefund(f, principal(f.m), inv.ID, refundReq(ptr(kassa.Millis(3_000)), refundAddress, ""))
		must(t, err)
		extra, _ := f.pay(t, inv, "0xe9", 2_000, true)
		if extra.Status != kassa.PaymentManualRetry {
			t.Fatalf("money after paid: %s", extra.Status)
		}
		aside := refundReq(nil, refundAddress, "")
		aside.PaymentID = extra.ID
		_, err = createRefund(f, principal(f.m), inv.ID, aside)
		must(t, err)
		n, err := f.db.SimulateRefunds(f.ctx, kassa.Devnet, func(string) bool { return false }, func(string) string { return "0xfeed" })
		if err != nil || n != 2 {
			t.Fatalf("simulated %d refunds (%v)", n, err)
		}
		want = "2026-11-22 paid 2 $27.32 refunds 0 $0.00; 2026-11-24 paid 0 $0.00 refunds 1 $16.82; 2026-11-25 paid 0 $0.00 refunds 1 $3.00"
		if got := volume(dayA); got != want {
			t.Fatalf("invoice refunds: %s, want %s", got, want)
		}
	})
}

// TestFailingDeliveries: deliveries retrying after a failed attempt count now,
// those that gave up count from since; succeeded ones, ones not tried yet and
// other merchants' do not (issue 37, finding 5).
func TestFailingDeliveries(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		f := newFixture(t, cfg)
		p := principal(f.m)
		failing := func(since time.Time) report.Failing {
			t.Helper()
			n, err := f.db.FailingDeliveries(f.ctx, f.m.ID, kassa.Devnet, since)
			must(t, err)
			return n
		}
		// One event to three endpoints: one answers, one refuses connections, one is gone.
		results := map[string]delivery.Result{
			f.endpoint(t, p, "ok", "*").ID:      {StatusCode: 200},
			f.endpoint(t, p, "refused", "*").ID: {Error: "connection refused"},
			f.endpoint(t, p, "gone", "*").ID:    {StatusCode: 410},
		}
		other := f.merchant(t, "other@example.com")
		results[f.endpoint(t, principal(other), "theirs", "*").ID] = delivery.Result{Error: "connection refused"}
		f.invoice(t, f.m, 1_000, nil)
		f.invoice(t, other, 1_000, nil)
		if got := failing(f.clock.Now()); got != (report.Failing{}) {
			t.Fatalf("before any attempt: %+v", got)
		}
		// The gone endpoint's webhook_endpoint.disabled events queue fresh
		// deliveries to the others: not failing.
		for _, j := range f.claim(t, time.Minute, 4) {
			f.finish(t, j, results[j.Delivery.EndpointID])
		}
		if got := failing(f.clock.Now()); got != (report.Failing{Retrying: 1, Failed: 1}) || got.Total() != 2 {
			t.Fatalf("after one attempt each: %+v", got)
		}
		f.clock.Advance(time.Hour)
		if got := failing(f.clock.Now()); got != (report.Failing{Retrying: 1}) {
			t.Fatalf("the failure before since: %+v", got)
		}
	})
}
