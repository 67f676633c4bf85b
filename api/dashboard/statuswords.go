package dashboard

import (
	"encoding/json"
	"fmt"

	"github.com/kassapay/kassa"
)

// statusWord is how the dashboard shows one status of the API: a few words, a
// short explanation, and the API's own value (its code) for developers.
type statusWord struct {
	Code    string // the API's value, e.g. manual_retry; also the badge's class
	Label   string // what a merchant reads, e.g. "Needs review"
	Explain string // one short sentence; "" when the label says it all
}

// MarshalJSON sends the live page what its script writes: code, label and title.
func (s statusWord) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Code  string `json:"code"`
		Label string `json:"label"`
		Title string `json:"title"`
	}{s.Code, s.Label, s.Title()})
}

// Title is the badge's tooltip: the explanation and the API's value.
func (s statusWord) Title() string {
	if s.Explain == "" {
		return "API status: " + s.Code
	}
	return s.Explain + " (API status: " + s.Code + ")"
}

// statusKinds name the tables below, as templates pass them to the status func.
const (
	kindInvoice      = "invoice"
	kindPayment      = "payment"
	kindSettlement   = "settlement"
	kindDelivery     = "delivery"
	kindOrder        = "order"
	kindOrderPayment = "order_payment"
	kindRefund       = "refund"
	kindMoneyBack    = "invoice_refund" // a refund of an invoice's money (refund.go), not an order's
)

// statusWords are the words of every status the dashboard shows, by kind: the
// same value means different things in different kinds ("pending" money is not
// a "pending" webhook delivery). The interface spells the invoice status
// "canceled" and the order status "cancelled"; both read "Canceled".
var statusWords = map[string]map[string]statusWord{
	kindInvoice: words(
		"unpaid", "Awaiting payment", "Nothing has arrived yet.",
		"underpaid", "Part paid", "Less than the amount arrived; the payor can send the rest.",
		"paid", "Paid", "The full amount arrived and is confirmed.",
		"expired", "Expired", "Not paid in time; the payment link takes no more money.",
		"canceled", "Canceled", "Canceled before it was paid.",
	),
	kindPayment: words(
		"pending", "Confirming", "Seen on the network, waiting for confirmations.",
		"confirmed", "Confirmed", "Confirmed on the network and counted.",
		"underpaid", "Short", "Confirmed, but less than the quote asked.",
		"manual_retry", "Needs review", "Set aside for a person: paid after expiry, in another token, or its settlement failed.",
	),
	kindSettlement: words(
		"pending", "Waiting to settle", "Settles once the payment is confirmed.",
		"processing", "Settling", "The transfer to your settlement address is on its way.",
		"settled", "Settled", "Sent to your settlement address.",
		"failed", "Settlement failed", "The transfer failed; it needs a person.",
		"manual", "Settle by hand", "No automatic route for this token: send it yourself.",
	),
	kindDelivery: words(
		"pending", "Retrying", "Waiting for its next attempt.",
		"succeeded", "Delivered", "The endpoint answered 2xx.",
		"failed", "Failed", "Retries ran out, the endpoint answered 410, or it was disabled.",
	),
	kindOrder: words(
		"pending_payment", "Awaiting payment", "The order's invoice is not paid yet.",
		"payment_confirmed", "Paid", "The payment is confirmed.",
		"payment_settled", "Paid and settled", "The payment is confirmed and settled.",
		"placed", "Placed", "Ordered from the retailer.",
		"shipped", "Shipped", "On its way to the customer.",
		"delivery_confirmed", "Delivered", "The carrier confirmed the delivery.",
		"failed", "Failed", "The order could not be placed.",
		"cancelled", "Canceled", "Canceled; a paid order is refunded less the commerce fee.",
		"refunded", "Refunded", "The payor was refunded.",
	),
	kindOrderPayment: words(
		"unpaid", "Awaiting payment", "Nothing has arrived yet.",
		"pending", "Confirming", "Seen on the network, waiting for confirmations.",
		"underpaid", "Part paid", "Less than the total arrived.",
		"paid", "Paid", "The full amount arrived and is confirmed.",
		"expired", "Expired", "Not paid in time.",
		"canceled", "Canceled", "Canceled before it was paid.",
	),
	kindRefund: words(
		"NONE", "No refund", "",
		"PENDING", "Refund owed", "Owed to the payor, not sent yet.",
		"REFUNDED", "Refunded", "Sent to the payor and confirmed.",
		"FAILED", "Refund failed", "The transfer failed for good: send it by hand.",
	),
	kindMoneyBack: words(
		"awaiting_address", "Waiting for the payor", "Sent as a claim link; the payor has not given an address yet.",
		"pending", "To be sent", "It has its address; the transfer is not signed yet.",
		"sent", "Sent", "The transfer is on the network, waiting for confirmations.",
		"confirmed", "Refunded", "The transfer is confirmed: the payor has the money.",
		"failed", "Failed", "The transfer failed; what it held can be refunded again.",
		"canceled", "Canceled", "Canceled before it was sent.",
	),
}

// setAsideWords say why a receipt needs review (its attention_reason): a few
// words for its label ("Needs review: paid after expiry") and an explanation.
var setAsideWords = map[kassa.AttentionReason][2]string{
	kassa.AttentionLate:             {"paid after expiry", "Paid after the invoice expired, or no rate could value it."},
	kassa.AttentionWrongToken:       {"wrong token", "Paid in another token or network than the one chosen."},
	kassa.AttentionFinalInvoice:     {"invoice already closed", "Paid after the invoice was paid or canceled."},
	kassa.AttentionReorged:          {"lost to a reorganisation", "Its block left the chain; the transfer may not exist any more."},
	kassa.AttentionSettlementFailed: {"settlement failed", "Its settlement failed."},
}

// paymentStatus is a receipt's status in words. One set aside for a person
// says why (its attention_reason) in its label and explanation, and once a
// merchant dismissed it, that it was kept without credit; once a refund of it
// confirmed, that it went back.
func paymentStatus(p *kassa.InvoicePayment) statusWord {
	w := status(kindPayment, p.Status)
	why, ok := setAsideWords[p.AttentionReason]
	switch {
	case p.Status != kassa.PaymentManualRetry:
	case p.Resolution == kassa.ResolutionRefunded:
		w.Label, w.Explain = "Refunded", "Sent back to the payor; it does not count toward the invoice."
		if ok {
			w.Explain = why[1] + " " + w.Explain
		}
	case p.Resolution == kassa.ResolutionDismissed:
		w.Label, w.Explain = "Dismissed", "Kept without credit to the invoice; it settles to you."
		if ok {
			w.Explain = why[1] + " " + w.Explain
		}
	case ok:
		w.Label, w.Explain = w.Label+": "+why[0], why[1]
	}
	return w
}

// paymentSettlement is a receipt's settlement in words. Money set aside for a
// person is not swept until a merchant accepts or dismisses it, and refunded
// money never is: "Waiting to settle" would promise money that is held, or gone.
func paymentSettlement(p *kassa.InvoicePayment) statusWord {
	w := status(kindSettlement, p.Settlement)
	if p.Status != kassa.PaymentManualRetry || p.Settlement != kassa.SettlementPending {
		return w
	}
	switch p.Resolution {
	case kassa.ResolutionRefunded:
		w.Label, w.Explain = "Not settled", "Refunded to the payor, so nothing is swept to you."
	case "":
		w.Label, w.Explain = "Held", "Not swept to you until you accept or dismiss it."
	}
	return w
}

// words builds one kind's table from code, label, explanation triples.
func words(triples ...string) map[string]statusWord {
	m := make(map[string]statusWord, len(triples)/3)
	for i := 0; i+2 < len(triples); i += 3 {
		m[triples[i]] = statusWord{Code: triples[i], Label: triples[i+1], Explain: triples[i+2]}
	}
	return m
}

// status is the words of value (any string type) in kind's table; a value the
// table does not know reads as itself.
func status(kind string, value any) statusWord {
	code := fmt.Sprint(value)
	if w, ok := statusWords[kind][code]; ok {
		return w
	}
	return statusWord{Code: code, Label: code}
}
