package dashboard

import (
	"encoding/json"
	"strconv"

	"kassa"
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
	Status        string       `json:"status"`
	AmountPaid    kassa.Millis `json:"amount_paid"`
	AmountUSD     kassa.Millis `json:"amount_usd"`
	Network       string       `json:"network"`
	Confirmations int          `json:"confirmations"`
	Settlement    string       `json:"settlement_status"`
}

// describe says what an event means on the timeline: created → payment detected
// → N confirmations → paid → settled.
func describe(e *kassa.Event) string {
	var f eventFields
	_ = json.Unmarshal(e.Data, &f) // a field it lacks reads as zero
	confs := func(n int) string {
		if n == 1 {
			return "1 confirmation"
		}
		return strconv.Itoa(n) + " confirmations"
	}
	switch e.Type {
	case kassa.EventInvoiceCreated:
		return "Invoice created"
	case kassa.EventInvoiceUpdated:
		return "Invoice " + f.Status + ": " + f.AmountPaid.USD() + " paid"
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
