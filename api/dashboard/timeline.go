package dashboard

import (
	"bytes"
	"encoding/json"
	"strconv"

	"github.com/kassapay/kassa"
)

// timelineRow is one event of the invoice or its receipts, oldest first.
type timelineRow struct {
	At   string `json:"at"` // RFC 3339, for the datetime attribute
	When string `json:"-"`  // as the page prints it without JavaScript
	Type string `json:"type"`
	Text string `json:"text"`
}

// eventFields are the fields of an invoice or receipt event the timeline tells.
type eventFields struct {
	Status        string          `json:"status"`
	Amount        kassa.Millis    `json:"amount"`
	AmountPaid    kassa.Millis    `json:"amount_paid"`
	AmountPending kassa.Millis    `json:"amount_pending"`
	AmountUSD     kassa.Millis    `json:"amount_usd"`
	CustomerEmail *string         `json:"customer_email"`
	FormResponses json.RawMessage `json:"form_responses"`
	Network       string          `json:"network"`
	Confirmations int             `json:"confirmations"`
	Settlement    string          `json:"settlement_status"`
}

// timeline tells events (oldest first) as rows. An invoice.updated event is told
// by what changed since the invoice's previous event, as its data is the whole
// invoice; one that only moves the status to paid, expired or canceled has a row
// of its own event beside it, and no row itself. Identical rows in a row are
// folded into one that counts them, so nothing reads twice (issue 37, finding 5:
// "Invoice unpaid: $0.00 paid" twice, for a token chosen and an email given).
func timeline(events []*kassa.Event, tokenLocked bool) []timelineRow {
	var rows []timelineRow
	var prev eventFields
	last, repeats := "", 0 // the last row's text before folding, and how many it stands for
	for _, e := range events {
		var f eventFields
		_ = json.Unmarshal(e.Data, &f) // a field it lacks reads as zero
		text := describe(e, f)
		if e.Type == kassa.EventInvoiceUpdated {
			text = describeUpdate(prev, f, tokenLocked)
		}
		if isInvoiceEvent(e.Type) {
			prev = f
		}
		switch {
		case text == "":
		case text == last:
			repeats++
			rows[len(rows)-1].Text = text + " (" + strconv.Itoa(repeats) + " times)"
		default:
			last, repeats = text, 1
			rows = append(rows, timelineRow{At: kassa.FormatTime(e.Created), When: e.Created.UTC().Format("2006-01-02 15:04:05 UTC"),
				Type: e.Type, Text: text})
		}
	}
	return rows
}

func isInvoiceEvent(typ string) bool {
	switch typ {
	case kassa.EventInvoiceCreated, kassa.EventInvoiceUpdated, kassa.EventInvoicePaid, kassa.EventInvoicePaidAfterExpired,
		kassa.EventInvoiceExpired, kassa.EventInvoiceCanceled:
		return true
	}
	return false
}

// describeUpdate says what an invoice.updated event changed since prev, the
// invoice as its previous event had it; "" when its own event says it.
func describeUpdate(prev, f eventFields, tokenLocked bool) string {
	switch {
	case f.AmountPaid != prev.AmountPaid || f.AmountPending != prev.AmountPending:
		s := "Invoice " + f.Status + ": " + f.AmountPaid.USD() + " of " + f.Amount.USD() + " paid"
		if f.AmountPending > 0 {
			s += ", " + f.AmountPending.USD() + " pending"
		}
		return s
	case f.Status != prev.Status:
		switch kassa.InvoiceStatus(f.Status) {
		case kassa.StatusPaid, kassa.StatusExpired, kassa.StatusCanceled:
			return "" // invoice.paid, invoice.expired or invoice.canceled has the row
		}
		return "Invoice " + f.Status
	case f.CustomerEmail != nil && (prev.CustomerEmail == nil || *prev.CustomerEmail != *f.CustomerEmail):
		return "Payor gave an email for the receipt"
	case !bytes.Equal(f.FormResponses, prev.FormResponses):
		return "Payor answered the questions"
	case tokenLocked:
		// The one update that changes nothing the invoice object shows: the
		// payor choosing the token to pay with (it locks the invoice to it).
		return "Payor chose the token to pay with"
	}
	return "Invoice updated"
}

// describe says what an event means on the timeline: created → payment detected
// → N confirmations → paid → settled.
func describe(e *kassa.Event, f eventFields) string {
	confs := func(n int) string {
		if n == 1 {
			return "1 confirmation"
		}
		return strconv.Itoa(n) + " confirmations"
	}
	switch e.Type {
	case kassa.EventInvoiceCreated:
		return "Invoice created for " + f.Amount.USD()
	case kassa.EventInvoicePaid:
		return "Paid in full"
	case kassa.EventInvoicePaidAfterExpired:
		return "Paid after it expired"
	case kassa.EventInvoiceExpired:
		return "Expired"
	case kassa.EventInvoiceCanceled:
		return "Canceled"
	case kassa.EventPaymentCreated:
		return "Payment detected: " + f.AmountUSD.USD() + " on " + f.Network + ", " + confs(f.Confirmations)
	case kassa.EventPaymentUpdated:
		switch f.Settlement {
		case string(kassa.SettlementSettled):
			return "Payment of " + f.AmountUSD.USD() + " settled to the merchant"
		case string(kassa.SettlementFailed), string(kassa.SettlementManual):
			return "Payment of " + f.AmountUSD.USD() + ": settlement " + f.Settlement
		}
		switch kassa.InvoicePaymentStatus(f.Status) {
		case kassa.PaymentConfirmed, kassa.PaymentUnderpaid:
			return "Payment of " + f.AmountUSD.USD() + " confirmed: " + confs(f.Confirmations)
		case kassa.PaymentManualRetry:
			return "Payment of " + f.AmountUSD.USD() + " needs a manual review"
		}
		return "Payment of " + f.AmountUSD.USD() + ": " + confs(f.Confirmations)
	}
	return e.Type
}
