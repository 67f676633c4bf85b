package kassa

import (
	"encoding/json"
	"math/big"
	"strings"
	"testing"
	"time"
)

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
