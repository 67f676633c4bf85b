package refund

import (
	"math/big"
	"testing"
	"time"

	"github.com/kassapay/kassa"
)

func refundPayment(t *testing.T, id string, status kassa.PaymentStatus, token int64, units int64, usd kassa.Millis, seen int) *kassa.Payment {
	t.Helper()
	return &kassa.Payment{ID: id, Network: "base", TokenID: token, Status: status, AmountUnits: big.NewInt(units),
		AmountUSD: usd, SeenAt: time.Unix(int64(seen), 0)}
}

func usdPtr(m kassa.Millis) *kassa.Millis { return &m }

func TestRefundable(t *testing.T) {
	// Two confirmed USDC payments: 6 USD for 6_000000 units and 4 USD for
	// 4_000000; a wrong-token payment set aside (3_000 units of token 2, worth
	// 1.5 USD); a pending one; an orphaned one.
	pays := []*kassa.Payment{
		refundPayment(t, "p2", kassa.PaymentUnderpaid, 1, 4_000000, 4000, 2),
		refundPayment(t, "p1", kassa.PaymentConfirmed, 1, 6_000000, 6000, 1),
		refundPayment(t, "wrong", kassa.PaymentManualRetry, 2, 3000, 1500, 3),
		refundPayment(t, "pend", kassa.PaymentPending, 1, 1_000000, 1000, 4),
		refundPayment(t, "unpriced", kassa.PaymentManualRetry, 1, 5_000000, 0, 5),
	}
	orphan := refundPayment(t, "orphan", kassa.PaymentManualRetry, 1, 7, 7, 6)
	orphan.BlockNumber = 9
	pays = append(pays, orphan)
	refund := func(payment string, token int64, units int64, usd kassa.Millis, s kassa.RefundStatus) *kassa.Refund {
		return &kassa.Refund{PaymentID: payment, Network: "base", TokenID: token, AmountUnits: big.NewInt(units), AmountUSD: usd, Status: s}
	}
	tests := []struct {
		name      string
		payments  []*kassa.Payment
		refunds   []*kassa.Refund
		req       Request
		wantUnits int64
		wantUSD   kassa.Millis
		wantToken int64
		wantCode  string
	}{
		{name: "no payment", payments: pays[2:], wantCode: "nothing_to_refund"},
		{name: "all by default", payments: pays, wantUnits: 10_000000, wantUSD: 10000, wantToken: 1},
		{name: "partial usd at the rate paid", payments: pays, req: Request{AmountUSD: usdPtr(2500)},
			wantUnits: 2_500000, wantUSD: 2500, wantToken: 1},
		{name: "more than paid", payments: pays, req: Request{AmountUSD: usdPtr(10001)}, wantCode: "refund_exceeds_paid"},
		{name: "refunds count until failed or canceled", payments: pays,
			refunds: []*kassa.Refund{refund("", 1, 3_000000, 3000, kassa.RefundPending), refund("p1", 1, 1_000000, 1000, kassa.RefundConfirmed),
				refund("", 1, 5_000000, 5000, kassa.RefundFailed), refund("", 1, 5_000000, 5000, kassa.RefundCanceled)},
			wantUnits: 6_000000, wantUSD: 6000, wantToken: 1},
		{name: "beyond what refunds left", payments: pays, refunds: []*kassa.Refund{refund("", 1, 9_000000, 9000, kassa.RefundSent)},
			req: Request{AmountUSD: usdPtr(1001)}, wantCode: "refund_exceeds_paid"},
		{name: "all refunded", payments: pays, refunds: []*kassa.Refund{refund("", 1, 10_000000, 10000, kassa.RefundConfirmed)},
			wantCode: "nothing_to_refund"},
		{name: "exact units", payments: pays, req: Request{AmountUnits: big.NewInt(1_500000)},
			wantUnits: 1_500000, wantUSD: 1500, wantToken: 1},
		{name: "units beyond", payments: pays, req: Request{AmountUnits: big.NewInt(10_000001)}, wantCode: "refund_exceeds_paid"},
		{name: "current rate", payments: pays, req: Request{AmountUSD: usdPtr(4000), Rate: kassa.RefundRateCurrent,
			Token: kassa.Token{Decimals: 6}, CurrentRate: big.NewRat(2, 1)}, wantUnits: 2_000000, wantUSD: 4000, wantToken: 1},
		{name: "current rate, all: tokens worth what is left today", payments: pays, req: Request{Rate: kassa.RefundRateCurrent,
			Token: kassa.Token{Decimals: 6}, CurrentRate: big.NewRat(2, 1)}, wantUnits: 5_000000, wantUSD: 10000, wantToken: 1},
		{name: "current rate, all: never more tokens than paid", payments: pays, req: Request{Rate: kassa.RefundRateCurrent,
			Token: kassa.Token{Decimals: 6}, CurrentRate: big.NewRat(1, 2)}, wantUnits: 10_000000, wantUSD: 10000, wantToken: 1},
		{name: "a wrong-token payment, in its own token", payments: pays, req: Request{PaymentID: "wrong"},
			wantUnits: 3000, wantUSD: 1500, wantToken: 2},
		{name: "a wrong-token payment, not the pool's refunds", payments: pays,
			refunds: []*kassa.Refund{refund("", 1, 10_000000, 10000, kassa.RefundPending), refund("wrong", 2, 1000, 500, kassa.RefundPending)},
			req:     Request{PaymentID: "wrong"}, wantUnits: 2000, wantUSD: 1000, wantToken: 2},
		{name: "one confirmed payment, bounded by itself", payments: pays, req: Request{PaymentID: "p2", AmountUSD: usdPtr(4001)},
			wantCode: "refund_exceeds_paid"},
		{name: "one confirmed payment, bounded by the invoice", payments: pays,
			refunds: []*kassa.Refund{refund("", 1, 8_000000, 8000, kassa.RefundPending)}, req: Request{PaymentID: "p2"},
			wantUnits: 2_000000, wantUSD: 2000, wantToken: 1},
		{name: "unknown payment", payments: pays, req: Request{PaymentID: "nope"}, wantCode: "resource_missing"},
		{name: "pending payment", payments: pays, req: Request{PaymentID: "pend"}, wantCode: "nothing_to_refund"},
		{name: "orphaned payment", payments: pays, req: Request{PaymentID: "orphan"}, wantCode: "nothing_to_refund"},
		{name: "unpriced payment in usd", payments: pays, req: Request{PaymentID: "unpriced", AmountUSD: usdPtr(1)},
			wantCode: "payment_unpriced"},
		{name: "unpriced payment in units", payments: pays, req: Request{PaymentID: "unpriced", AmountUnits: big.NewInt(5)},
			wantUnits: 5, wantUSD: 0, wantToken: 1},
		{name: "too small", payments: pays, req: Request{PaymentID: "wrong", AmountUSD: usdPtr(0)}, wantCode: "invalid_amount"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			plan, err := Refundable(tt.payments, tt.refunds, tt.req)
			if tt.wantCode != "" {
				if kassa.ErrorCode(err) != tt.wantCode {
					t.Fatalf("error %v (code %q), want code %s", err, kassa.ErrorCode(err), tt.wantCode)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if plan.AmountUnits.Int64() != tt.wantUnits || plan.AmountUSD != tt.wantUSD || plan.TokenID != tt.wantToken || plan.Network != "base" {
				t.Errorf("plan %s units %d USD token %d on %s, want %d units %d USD token %d",
					plan.AmountUnits, plan.AmountUSD, plan.TokenID, plan.Network, tt.wantUnits, tt.wantUSD, tt.wantToken)
			}
		})
	}
}
