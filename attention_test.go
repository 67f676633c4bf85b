package kassa

import (
	"testing"
	"time"
)

func TestSetAsideReason(t *testing.T) {
	tests := []struct {
		name    string
		current InvoiceStatus
		locked  int64
		a       Arrival
		want    AttentionReason
	}{
		{"open, its token", StatusUnpaid, 1, Arrival{TokenID: 1}, ""},
		{"open, nothing locked", StatusUnpaid, 0, Arrival{TokenID: 2}, ""},
		{"expired", StatusExpired, 1, Arrival{TokenID: 1}, AttentionLate},
		{"expired, another token", StatusExpired, 1, Arrival{TokenID: 2}, AttentionLate},
		{"paid", StatusPaid, 1, Arrival{TokenID: 1}, AttentionFinalInvoice},
		{"canceled", StatusCanceled, 0, Arrival{TokenID: 1}, AttentionFinalInvoice},
		{"another token", StatusUnderpaid, 1, Arrival{TokenID: 2}, AttentionWrongToken},
		{"unpriced", StatusUnpaid, 1, Arrival{TokenID: 1, Unpriced: true}, AttentionLate},
	}
	for _, tt := range tests {
		got := SetAsideReason(tt.current, tt.locked, tt.a)
		if got != tt.want {
			t.Errorf("%s: SetAsideReason = %q, want %q", tt.name, got, tt.want)
		}
		if status := ClassifyPayment(tt.current, tt.locked, tt.a, 0); (status == PaymentManualRetry) != (got != "") {
			t.Errorf("%s: ClassifyPayment = %s with reason %q", tt.name, status, got)
		}
	}
}

func TestCheckResolve(t *testing.T) {
	aside := func(mod func(*Payment)) *Payment {
		t.Helper()
		r := &Payment{Status: PaymentManualRetry, AmountUSD: 1000, BlockNumber: 9, BlockHash: "0x09", Confirmations: 3}
		if mod != nil {
			mod(r)
		}
		return r
	}
	now := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name string
		r    *Payment
		how  Resolution
		conf int
		want string // error code; "" for none
	}{
		{"accept, confirmed on chain", aside(nil), ResolutionAccepted, 3, ""},
		{"dismiss, confirmed on chain", aside(nil), ResolutionDismissed, 3, ""},
		{"simulated", aside(func(r *Payment) { r.BlockNumber, r.BlockHash, r.Confirmations = 0, "", 0 }), ResolutionAccepted, 0, ""},
		{"accept, too few confirmations", aside(nil), ResolutionAccepted, 4, "payment_not_confirmed"},
		{"dismiss, too few confirmations", aside(nil), ResolutionDismissed, 4, "payment_not_confirmed"},
		{"accept, reorged", aside(func(r *Payment) { r.BlockHash = "" }), ResolutionAccepted, 3, "payment_not_confirmed"},
		{"dismiss, reorged", aside(func(r *Payment) { r.BlockHash = "" }), ResolutionDismissed, 3, ""},
		{"accept, unpriced", aside(func(r *Payment) { r.AmountUSD = 0 }), ResolutionAccepted, 3, "payment_unpriced"},
		{"dismiss, unpriced", aside(func(r *Payment) { r.AmountUSD = 0 }), ResolutionDismissed, 3, ""},
		{"counted", aside(func(r *Payment) { r.Status = PaymentConfirmed }), ResolutionAccepted, 3, "payment_not_set_aside"},
		{"resolved", aside(func(r *Payment) { r.Resolve(ResolutionDismissed, "", now) }), ResolutionAccepted, 3, "payment_resolved"},
	}
	for _, tt := range tests {
		err := tt.r.CheckResolve(ResolveRequest{How: tt.how, Confirmations: tt.conf})
		got := ""
		if err != nil {
			got = AsError(err).Code
		}
		if got != tt.want {
			t.Errorf("%s: CheckResolve = %v, want %q", tt.name, err, tt.want)
		}
	}
}
