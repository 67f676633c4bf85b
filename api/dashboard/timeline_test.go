package dashboard

import (
	"strings"
	"testing"
	"time"

	"github.com/kassapay/kassa"
)

// TestTimeline: every invoice.updated says what changed (a token chosen, an
// email given, answers, money), a status change with its own event reads once,
// and repeats fold into one counted row (issue 37, finding 5: "Invoice unpaid:
// $0.00 paid" twice).
func TestTimeline(t *testing.T) {
	at := time.Date(2026, 11, 29, 9, 0, 0, 0, time.UTC)
	inv := &kassa.Invoice{ID: "7b0e7a6c-3f5e-4d7a-9d1e-1c2b3a4d5e6f", Status: kassa.StatusUnpaid, Amount: 12505,
		Currency: "usd", CreatedAt: at, ExpiresAt: at.Add(12 * time.Hour)}
	pay := &kassa.InvoicePayment{ID: "pay_1", InvoiceID: inv.ID, Network: "bsc-testnet", AmountUSD: 4000,
		Status: kassa.PaymentPending, Confirmations: 1}
	var events []*kassa.Event
	add := func(typ string, object any) {
		t.Helper()
		e, err := kassa.NewEvent(1, kassa.Devnet, typ, object, at)
		if err != nil {
			t.Fatal(err)
		}
		events = append(events, e)
		at = at.Add(time.Second)
	}
	snapshot := func() *kassa.Invoice { c := *inv; return &c }
	add(kassa.EventInvoiceCreated, snapshot())
	add(kassa.EventInvoiceUpdated, snapshot()) // a token chosen
	add(kassa.EventInvoiceUpdated, snapshot()) // another token chosen
	email := "payor@example.com"
	inv.CustomerEmail = &email
	add(kassa.EventInvoiceUpdated, snapshot())
	inv.FormResponses = []kassa.FormResponse{{QuestionID: "size", Response: "L"}}
	add(kassa.EventInvoiceUpdated, snapshot())
	add(kassa.EventPaymentCreated, pay)
	inv.AmountPending = 4000
	add(kassa.EventInvoiceUpdated, snapshot())
	pay.Status, pay.Confirmations = kassa.PaymentConfirmed, 3
	add(kassa.EventPaymentUpdated, pay)
	inv.Status, inv.AmountPending, inv.AmountPaid = kassa.StatusUnderpaid, 0, 4000
	add(kassa.EventInvoiceUpdated, snapshot())
	inv.Status = kassa.StatusExpired
	add(kassa.EventInvoiceUpdated, snapshot())
	add(kassa.EventInvoiceExpired, snapshot())

	var got []string
	for _, r := range timeline(events, true) {
		got = append(got, r.Text)
	}
	want := []string{
		"Invoice created for $12.505",
		"Payor chose the token to pay with (2 times)",
		"Payor gave an email for the receipt",
		"Payor answered the questions",
		"Payment detected: $4.00 on bsc-testnet, 1 confirmation",
		"Invoice unpaid: $0.00 of $12.505 paid, $4.00 pending",
		"Payment of $4.00 confirmed: 3 confirmations",
		"Invoice underpaid: $4.00 of $12.505 paid",
		"Expired",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("timeline:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// An update that changes nothing shown, with no token locked, says so plainly.
	if rows := timeline(events[:2], false); len(rows) != 2 || rows[1].Text != "Invoice updated" {
		t.Fatalf("rows %+v", rows)
	}
}
