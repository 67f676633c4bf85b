package dashboard

import (
	"testing"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/commerce"
)

// TestStatusWords: statuses read in words by kind, the API's value kept in the
// title; the interface's two spellings of canceled read the same; a receipt set
// aside says why; an unknown value reads as itself.
func TestStatusWords(t *testing.T) {
	for _, tt := range []struct {
		name         string
		got          statusWord
		label, title string
	}{
		{"invoice unpaid", status(kindInvoice, kassa.StatusUnpaid), "Awaiting payment", "Nothing has arrived yet. (API status: unpaid)"},
		{"invoice canceled", status(kindInvoice, kassa.StatusCanceled), "Canceled", "Canceled before it was paid. (API status: canceled)"},
		{"order cancelled", status(kindOrder, "cancelled"), "Canceled", "Canceled; a paid order is refunded less the commerce fee. (API status: cancelled)"},
		{"pending money", status(kindPayment, kassa.PaymentPending), "Confirming", "Seen on the network, waiting for confirmations. (API status: pending)"},
		{"pending delivery", status(kindDelivery, kassa.DeliveryPending), "Retrying", "Waiting for its next attempt. (API status: pending)"},
		{"refund none", status(kindRefund, "NONE"), "No refund", "API status: NONE"},
		{"invoice refund confirmed", status(kindMoneyBack, kassa.RefundConfirmed), "Refunded",
			"The transfer is confirmed: the payor has the money. (API status: confirmed)"},
		{"unknown", status(kindInvoice, "later_status"), "later_status", "API status: later_status"},
		{"set aside, late", paymentStatus(&kassa.InvoicePayment{Status: kassa.PaymentManualRetry, AttentionReason: kassa.AttentionLate}),
			"Needs review: paid after expiry", "Paid after the invoice expired, or no rate could value it. (API status: manual_retry)"},
		{"set aside, dismissed", paymentStatus(&kassa.InvoicePayment{Status: kassa.PaymentManualRetry, AttentionReason: kassa.AttentionWrongToken,
			Resolution: kassa.ResolutionDismissed}),
			"Dismissed", "Paid in another token or network than the one chosen. Kept without credit to the invoice; it settles to you. (API status: manual_retry)"},
		{"set aside, refunded", paymentStatus(&kassa.InvoicePayment{Status: kassa.PaymentManualRetry, AttentionReason: kassa.AttentionWrongToken,
			Resolution: kassa.ResolutionRefunded}),
			"Refunded", "Paid in another token or network than the one chosen. Sent back to the payor; it does not count toward the invoice. (API status: manual_retry)"},
		{"set aside, no reason", paymentStatus(&kassa.InvoicePayment{Status: kassa.PaymentManualRetry}),
			"Needs review", "Set aside for a person: paid after expiry, in another token, or its settlement failed. (API status: manual_retry)"},
		{"held for review", paymentSettlement(&kassa.InvoicePayment{Status: kassa.PaymentManualRetry, Settlement: kassa.SettlementPending}),
			"Held", "Not swept to you until you accept or dismiss it. (API status: pending)"},
		{"refunded, never swept", paymentSettlement(&kassa.InvoicePayment{Status: kassa.PaymentManualRetry, Settlement: kassa.SettlementPending,
			Resolution: kassa.ResolutionRefunded}),
			"Not settled", "Refunded to the payor, so nothing is swept to you. (API status: pending)"},
		{"dismissed, waiting to settle", paymentSettlement(&kassa.InvoicePayment{Status: kassa.PaymentManualRetry, Settlement: kassa.SettlementPending,
			Resolution: kassa.ResolutionDismissed}),
			status(kindSettlement, kassa.SettlementPending).Label, status(kindSettlement, kassa.SettlementPending).Title()},
		{"counted, settlement failed", paymentStatus(&kassa.InvoicePayment{Status: kassa.PaymentConfirmed, AttentionReason: kassa.AttentionSettlementFailed}),
			"Confirmed", "Confirmed on the network and counted. (API status: confirmed)"},
	} {
		if tt.got.Label != tt.label || tt.got.Title() != tt.title {
			t.Errorf("%s: %q, %q; want %q, %q", tt.name, tt.got.Label, tt.got.Title(), tt.label, tt.title)
		}
	}
}

// TestStatusWordsComplete: every status the domain names has words in its kind.
func TestStatusWordsComplete(t *testing.T) {
	for kind, values := range map[string][]string{
		kindInvoice:    {"unpaid", "underpaid", "paid", "expired", "canceled"},
		kindPayment:    {"pending", "confirmed", "underpaid", "manual_retry"},
		kindSettlement: {"pending", "processing", "settled", "failed", "manual"},
		kindDelivery:   {kassa.DeliveryPending, kassa.DeliverySucceeded, kassa.DeliveryFailed},
		kindMoneyBack: {string(kassa.RefundAwaitingAddress), string(kassa.RefundPending), string(kassa.RefundSent),
			string(kassa.RefundConfirmed), string(kassa.RefundFailed), string(kassa.RefundCanceled)},
	} {
		for _, v := range values {
			if _, ok := statusWords[kind][v]; !ok {
				t.Errorf("%s status %q has no words", kind, v)
			}
		}
	}
	for _, v := range commerce.OrderStatuses {
		if _, ok := statusWords[kindOrder][string(v)]; !ok {
			t.Errorf("order status %q has no words", v)
		}
	}
}

// TestFormMessage: the API's refusals in a merchant's words.
func TestFormMessage(t *testing.T) {
	for _, tt := range []struct {
		err  error
		want string
	}{
		{kassa.Invalidf("amount_usd", "amount_invalid", "amount_usd must be a JSON number such as 12.5."), "Enter an amount such as 12.50."},
		{kassa.Invalidf("description", "description_too_long", "description must be at most 255 characters."), "This field must be at most 255 characters."},
		{kassa.Invalidf("", "invalid_form", "The form could not be read."), "The form could not be read."},
	} {
		if got := formMessage(tt.err); got != tt.want {
			t.Errorf("formMessage(%v) = %q, want %q", tt.err, got, tt.want)
		}
	}
}
