package kassa

import (
	"encoding/json"
	"math/big"
	"strings"
	"testing"
	"time"
)

func refundPayment(t *testing.T, id string, status PaymentStatus, token int64, units int64, usd Millis, seen int) *Payment {
	t.Helper()
	return &Payment{ID: id, Network: "base", TokenID: token, Status: status, AmountUnits: big.NewInt(units),
		AmountUSD: usd, SeenAt: time.Unix(int64(seen), 0)}
}

func usdPtr(m Millis) *Millis { return &m }

func TestPlanRefund(t *testing.T) {
	// Two confirmed USDC payments: 6 USD for 6_000000 units and 4 USD for
	// 4_000000; a wrong-token payment set aside (3_000 units of token 2, worth
	// 1.5 USD); a pending one; an orphaned one.
	pays := []*Payment{
		refundPayment(t, "p2", PaymentUnderpaid, 1, 4_000000, 4000, 2),
		refundPayment(t, "p1", PaymentConfirmed, 1, 6_000000, 6000, 1),
		refundPayment(t, "wrong", PaymentManualRetry, 2, 3000, 1500, 3),
		refundPayment(t, "pend", PaymentPending, 1, 1_000000, 1000, 4),
		refundPayment(t, "unpriced", PaymentManualRetry, 1, 5_000000, 0, 5),
	}
	orphan := refundPayment(t, "orphan", PaymentManualRetry, 1, 7, 7, 6)
	orphan.BlockNumber = 9
	pays = append(pays, orphan)
	refund := func(payment string, token int64, units int64, usd Millis, s RefundStatus) *Refund {
		return &Refund{PaymentID: payment, Network: "base", TokenID: token, AmountUnits: big.NewInt(units), AmountUSD: usd, Status: s}
	}
	tests := []struct {
		name      string
		payments  []*Payment
		refunds   []*Refund
		req       RefundRequest
		wantUnits int64
		wantUSD   Millis
		wantToken int64
		wantCode  string
	}{
		{name: "no payment", payments: pays[2:], wantCode: "nothing_to_refund"},
		{name: "all by default", payments: pays, wantUnits: 10_000000, wantUSD: 10000, wantToken: 1},
		{name: "partial usd at the rate paid", payments: pays, req: RefundRequest{AmountUSD: usdPtr(2500)},
			wantUnits: 2_500000, wantUSD: 2500, wantToken: 1},
		{name: "more than paid", payments: pays, req: RefundRequest{AmountUSD: usdPtr(10001)}, wantCode: "refund_exceeds_paid"},
		{name: "refunds count until failed or canceled", payments: pays,
			refunds: []*Refund{refund("", 1, 3_000000, 3000, RefundPending), refund("p1", 1, 1_000000, 1000, RefundConfirmed),
				refund("", 1, 5_000000, 5000, RefundFailed), refund("", 1, 5_000000, 5000, RefundCanceled)},
			wantUnits: 6_000000, wantUSD: 6000, wantToken: 1},
		{name: "beyond what refunds left", payments: pays, refunds: []*Refund{refund("", 1, 9_000000, 9000, RefundSent)},
			req: RefundRequest{AmountUSD: usdPtr(1001)}, wantCode: "refund_exceeds_paid"},
		{name: "all refunded", payments: pays, refunds: []*Refund{refund("", 1, 10_000000, 10000, RefundConfirmed)},
			wantCode: "nothing_to_refund"},
		{name: "exact units", payments: pays, req: RefundRequest{AmountUnits: big.NewInt(1_500000)},
			wantUnits: 1_500000, wantUSD: 1500, wantToken: 1},
		{name: "units beyond", payments: pays, req: RefundRequest{AmountUnits: big.NewInt(10_000001)}, wantCode: "refund_exceeds_paid"},
		{name: "current rate", payments: pays, req: RefundRequest{AmountUSD: usdPtr(4000), Rate: RefundRateCurrent,
			Token: Token{Decimals: 6}, CurrentRate: big.NewRat(2, 1)}, wantUnits: 2_000000, wantUSD: 4000, wantToken: 1},
		{name: "current rate, all: tokens worth what is left today", payments: pays, req: RefundRequest{Rate: RefundRateCurrent,
			Token: Token{Decimals: 6}, CurrentRate: big.NewRat(2, 1)}, wantUnits: 5_000000, wantUSD: 10000, wantToken: 1},
		{name: "current rate, all: never more tokens than paid", payments: pays, req: RefundRequest{Rate: RefundRateCurrent,
			Token: Token{Decimals: 6}, CurrentRate: big.NewRat(1, 2)}, wantUnits: 10_000000, wantUSD: 10000, wantToken: 1},
		{name: "a wrong-token payment, in its own token", payments: pays, req: RefundRequest{PaymentID: "wrong"},
			wantUnits: 3000, wantUSD: 1500, wantToken: 2},
		{name: "a wrong-token payment, not the pool's refunds", payments: pays,
			refunds: []*Refund{refund("", 1, 10_000000, 10000, RefundPending), refund("wrong", 2, 1000, 500, RefundPending)},
			req:     RefundRequest{PaymentID: "wrong"}, wantUnits: 2000, wantUSD: 1000, wantToken: 2},
		{name: "one confirmed payment, bounded by itself", payments: pays, req: RefundRequest{PaymentID: "p2", AmountUSD: usdPtr(4001)},
			wantCode: "refund_exceeds_paid"},
		{name: "one confirmed payment, bounded by the invoice", payments: pays,
			refunds: []*Refund{refund("", 1, 8_000000, 8000, RefundPending)}, req: RefundRequest{PaymentID: "p2"},
			wantUnits: 2_000000, wantUSD: 2000, wantToken: 1},
		{name: "unknown payment", payments: pays, req: RefundRequest{PaymentID: "nope"}, wantCode: "resource_missing"},
		{name: "pending payment", payments: pays, req: RefundRequest{PaymentID: "pend"}, wantCode: "nothing_to_refund"},
		{name: "orphaned payment", payments: pays, req: RefundRequest{PaymentID: "orphan"}, wantCode: "nothing_to_refund"},
		{name: "unpriced payment in usd", payments: pays, req: RefundRequest{PaymentID: "unpriced", AmountUSD: usdPtr(1)},
			wantCode: "payment_unpriced"},
		{name: "unpriced payment in units", payments: pays, req: RefundRequest{PaymentID: "unpriced", AmountUnits: big.NewInt(5)},
			wantUnits: 5, wantUSD: 0, wantToken: 1},
		{name: "too small", payments: pays, req: RefundRequest{PaymentID: "wrong", AmountUSD: usdPtr(0)}, wantCode: "invalid_amount"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			plan, err := PlanRefund(tt.payments, tt.refunds, tt.req)
			if tt.wantCode != "" {
				if ErrorCode(err) != tt.wantCode {
					t.Fatalf("error %v (code %q), want code %s", err, ErrorCode(err), tt.wantCode)
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

func TestRefundStatusRules(t *testing.T) {
	tests := []struct {
		s                  RefundStatus
		counts, cancelable bool
	}{
		{RefundAwaitingAddress, true, true}, {RefundPending, true, true}, {RefundSent, true, false},
		{RefundConfirmed, true, false}, {RefundFailed, false, false}, {RefundCanceled, false, false},
	}
	for _, tt := range tests {
		if tt.s.Counts() != tt.counts || tt.s.Cancelable() != tt.cancelable {
			t.Errorf("%s: counts %v cancelable %v, want %v %v", tt.s, tt.s.Counts(), tt.s.Cancelable(), tt.counts, tt.cancelable)
		}
	}
}

func TestRefundJSON(t *testing.T) {
	r := &Refund{ID: "r1", InvoiceID: "i1", PaymentID: "p1", Status: RefundAwaitingAddress, AmountUSD: 2500,
		Rate: RefundRatePaid, Network: "base", TokenID: 1, TokenSymbol: "USDC", Decimals: 6,
		AmountUnits: big.NewInt(2_500000), ClaimURL: "https://k/refund/r1?t=x", Reason: "sorry",
		CreatedAt: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
	tests := []struct {
		name     string
		v        any
		want     []string
		wantNone []string
	}{
		{name: "merchant", v: r, want: []string{`"amount_token":"2.5"`, `"amount_usd_decimal":"2.500"`,
			`"claim_url":"https://k/refund/r1?t=x"`, `"reason":"sorry"`, `"payment_id":"p1"`, `"failure_reason":null`,
			`"address":null`, `"tx_hash":null`}},
		{name: "payor", v: r.PayorView(), want: []string{`"amount_token":"2.5"`, `"status":"awaiting_address"`},
			wantNone: []string{"claim_url", "reason", "payment_id"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := json.Marshal(tt.v)
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range tt.want {
				if !strings.Contains(string(b), w) {
					t.Errorf("%s lacks %s", b, w)
				}
			}
			for _, w := range tt.wantNone {
				if strings.Contains(string(b), `"`+w+`"`) {
					t.Errorf("%s has %s", b, w)
				}
			}
		})
	}
}
