package kassa

import (
	"testing"
	"time"
)

// TestRefundClaimLapsed: a claim link ends RefundClaimTTL after creation for a
// refund still awaiting its address; a claimed or canceled one never lapses.
func TestRefundClaimLapsed(t *testing.T) {
	created := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	expires := created.Add(RefundClaimTTL)
	tests := []struct {
		name   string
		status RefundStatus
		at     time.Time
		want   bool
	}{
		{"awaiting, a second before", RefundAwaitingAddress, expires.Add(-time.Second), false},
		{"awaiting, at the end", RefundAwaitingAddress, expires, true},
		{"awaiting, after", RefundAwaitingAddress, expires.Add(time.Hour), true},
		{"claimed, after", RefundPending, expires.Add(time.Hour), false},
		{"confirmed, after", RefundConfirmed, expires.Add(time.Hour), false},
		{"canceled, after", RefundCanceled, expires.Add(time.Hour), false},
	}
	for _, tt := range tests {
		r := &Refund{Status: tt.status, CreatedAt: created, ClaimExpires: expires}
		if got := r.ClaimLapsed(tt.at); got != tt.want {
			t.Errorf("%s: ClaimLapsed %v, want %v", tt.name, got, tt.want)
		}
	}
	for s, want := range map[RefundStatus]bool{RefundAwaitingAddress: false, RefundPending: false, RefundSent: false,
		RefundConfirmed: true, RefundFailed: true, RefundCanceled: true} {
		if s.Final() != want {
			t.Errorf("%s.Final() = %v", s, !want)
		}
	}
}
