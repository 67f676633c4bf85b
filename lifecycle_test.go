package kassa

import (
	"testing"
	"time"
)

var (
	testExpiry = time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	beforeExp  = testExpiry.Add(-time.Minute)
)

func TestNextStatus(t *testing.T) {
	const amount Millis = 10000 // 10 USD
	tests := []struct {
		name      string
		current   InvoiceStatus
		got       Amounts
		tolerance Millis
		now       time.Time
		want      InvoiceStatus
	}{
		{"nothing received stays unpaid", StatusUnpaid, Amounts{}, 0, beforeExp, StatusUnpaid},
		{"pending only stays unpaid", StatusUnpaid, Amounts{Pending: amount}, 0, beforeExp, StatusUnpaid},
		{"unpaid to underpaid", StatusUnpaid, Amounts{Confirmed: 1}, 0, beforeExp, StatusUnderpaid},
		{"unpaid to underpaid, one milli short", StatusUnpaid, Amounts{Confirmed: amount - 1}, 0, beforeExp, StatusUnderpaid},
		{"unpaid to paid, exact", StatusUnpaid, Amounts{Confirmed: amount}, 0, beforeExp, StatusPaid},
		{"unpaid to paid, overpaid", StatusUnpaid, Amounts{Confirmed: amount * 3}, 0, beforeExp, StatusPaid},
		{"underpaid stays underpaid", StatusUnderpaid, Amounts{Confirmed: 5000, Pending: 5000}, 0, beforeExp, StatusUnderpaid},
		{"underpaid to paid", StatusUnderpaid, Amounts{Confirmed: amount}, 0, beforeExp, StatusPaid},
		{"underpaid to paid, overpaid", StatusUnderpaid, Amounts{Confirmed: amount + 1}, 0, beforeExp, StatusPaid},
		{"pending does not count as paid", StatusUnderpaid, Amounts{Confirmed: 1, Pending: amount}, 0, beforeExp, StatusUnderpaid},
		{"exactly at tolerance is paid", StatusUnpaid, Amounts{Confirmed: amount - 50}, 50, beforeExp, StatusPaid},
		{"one milli short of tolerance", StatusUnpaid, Amounts{Confirmed: amount - 51}, 50, beforeExp, StatusUnderpaid},
		{"underpaid within tolerance is paid", StatusUnderpaid, Amounts{Confirmed: amount - 1}, 1, beforeExp, StatusPaid},
		{"tolerance needs some money", StatusUnpaid, Amounts{}, amount, beforeExp, StatusUnpaid},
		{"tolerance needs confirmed money", StatusUnpaid, Amounts{Pending: 1}, amount, beforeExp, StatusUnpaid},
		{"unpaid before expiry", StatusUnpaid, Amounts{}, 0, testExpiry.Add(-time.Nanosecond), StatusUnpaid},
		{"unpaid expires exactly at expires_at", StatusUnpaid, Amounts{}, 0, testExpiry, StatusExpired},
		{"unpaid to expired", StatusUnpaid, Amounts{}, 0, testExpiry.Add(time.Hour), StatusExpired},
		{"underpaid to expired", StatusUnderpaid, Amounts{Confirmed: 1}, 0, testExpiry, StatusExpired},
		{"underpaid short of tolerance expires", StatusUnderpaid, Amounts{Confirmed: amount - 51}, 50, testExpiry, StatusExpired},
		{"expiry waits for pending (unpaid)", StatusUnpaid, Amounts{Pending: 1}, 0, testExpiry.Add(time.Hour), StatusUnpaid},
		{"expiry waits for pending (underpaid)", StatusUnderpaid, Amounts{Confirmed: 1, Pending: 1}, 0, testExpiry.Add(time.Hour), StatusUnderpaid},
		{"pending confirms after expiry: paid", StatusUnpaid, Amounts{Confirmed: amount}, 0, testExpiry.Add(time.Hour), StatusPaid},
		{"pending confirms after expiry, underpaid: paid", StatusUnderpaid, Amounts{Confirmed: amount}, 0, testExpiry.Add(time.Hour), StatusPaid},
		{"pending confirms after expiry within tolerance", StatusUnderpaid, Amounts{Confirmed: amount - 50}, 50, testExpiry, StatusPaid},
		{"pending fails after expiry: expired", StatusUnpaid, Amounts{}, 0, testExpiry.Add(time.Hour), StatusExpired},
		{"pending confirms short after expiry: expired", StatusUnderpaid, Amounts{Confirmed: 5000}, 0, testExpiry.Add(time.Hour), StatusExpired},
		{"reorg: underpaid back to unpaid", StatusUnderpaid, Amounts{}, 0, beforeExp, StatusUnpaid},
		{"reorg keeps pending: unpaid", StatusUnderpaid, Amounts{Pending: 3}, 0, beforeExp, StatusUnpaid},
		{"reorg after expiry: expired", StatusUnderpaid, Amounts{}, 0, testExpiry, StatusExpired},
	}
	// Final statuses never move, whatever the amounts and the time.
	for _, final := range []InvoiceStatus{StatusPaid, StatusExpired, StatusCanceled} {
		for _, got := range []Amounts{{}, {Confirmed: 1}, {Confirmed: amount}, {Confirmed: amount * 2}, {Pending: amount}, {Confirmed: 1, Pending: amount}} {
			for _, now := range []time.Time{beforeExp, testExpiry, testExpiry.Add(48 * time.Hour)} {
				tests = append(tests, struct {
					name      string
					current   InvoiceStatus
					got       Amounts
					tolerance Millis
					now       time.Time
					want      InvoiceStatus
				}{"final " + string(final), final, got, 0, now, final})
			}
		}
	}
	for _, tt := range tests {
		got := NextStatus(tt.current, amount, tt.got, tt.tolerance, testExpiry, tt.now)
		if got != tt.want {
			t.Errorf("%s: NextStatus(%s, %d, %+v, tol %d, now %s) = %s, want %s",
				tt.name, tt.current, amount, tt.got, tt.tolerance, tt.now.Format(time.RFC3339Nano), got, tt.want)
		}
	}
}

func TestStatusFinalAndValid(t *testing.T) {
	final := map[InvoiceStatus]bool{StatusPaid: true, StatusExpired: true, StatusCanceled: true}
	for _, s := range InvoiceStatuses {
		if !s.Valid() {
			t.Errorf("%s is not Valid", s)
		}
		if s.Final() != final[s] {
			t.Errorf("%s.Final() = %v", s, s.Final())
		}
	}
	for _, s := range []InvoiceStatus{"", "Paid", "cancelled", "void"} {
		if s.Valid() {
			t.Errorf("%q is Valid", s)
		}
	}
	if len(InvoiceStatuses) != 5 {
		t.Errorf("InvoiceStatuses has %d entries, want 5", len(InvoiceStatuses))
	}
}

func TestEffectiveStatus(t *testing.T) {
	tests := []struct {
		status  InvoiceStatus
		pending Millis
		now     time.Time
		want    InvoiceStatus
	}{
		{StatusUnpaid, 0, beforeExp, StatusUnpaid},
		{StatusUnpaid, 0, testExpiry.Add(-time.Nanosecond), StatusUnpaid},
		{StatusUnpaid, 0, testExpiry, StatusExpired},
		{StatusUnpaid, 0, testExpiry.Add(time.Hour), StatusExpired},
		{StatusUnpaid, 10, testExpiry.Add(time.Hour), StatusUnpaid},
		{StatusUnderpaid, 0, beforeExp, StatusUnderpaid},
		{StatusUnderpaid, 0, testExpiry, StatusExpired},
		{StatusUnderpaid, 10, testExpiry, StatusUnderpaid},
		{StatusPaid, 0, testExpiry.Add(time.Hour), StatusPaid},
		{StatusCanceled, 0, testExpiry.Add(time.Hour), StatusCanceled},
		{StatusExpired, 10, beforeExp, StatusExpired},
	}
	for _, tt := range tests {
		inv := &Invoice{Status: tt.status, Amount: 1000, AmountPending: tt.pending, ExpiresAt: testExpiry}
		if got := inv.EffectiveStatus(tt.now); got != tt.want {
			t.Errorf("EffectiveStatus(%s, pending %d, %s) = %s, want %s", tt.status, tt.pending, tt.now, got, tt.want)
		}
		// EffectiveStatus agrees with NextStatus on an invoice with no change in money.
		got := Amounts{Pending: tt.pending}
		if tt.status == StatusUnderpaid {
			got.Confirmed = 1
		}
		if next := NextStatus(tt.status, 1000, got, 0, testExpiry, tt.now); next != inv.EffectiveStatus(tt.now) {
			t.Errorf("NextStatus = %s but EffectiveStatus = %s for %+v", next, inv.EffectiveStatus(tt.now), tt)
		}
	}
}

func TestCheckCancel(t *testing.T) {
	for _, tt := range []struct {
		status   InvoiceStatus
		payments int
		code     string
	}{
		{StatusUnpaid, 0, ""},
		{StatusUnpaid, 1, "invoice_has_payments"},
		{StatusUnderpaid, 0, "invoice_not_cancelable"},
		{StatusUnderpaid, 2, "invoice_not_cancelable"},
		{StatusPaid, 1, "invoice_not_cancelable"},
		{StatusExpired, 0, "invoice_not_cancelable"},
		{StatusCanceled, 0, "invoice_not_cancelable"},
	} {
		err := CheckCancel(tt.status, tt.payments)
		if tt.code == "" {
			if err != nil {
				t.Errorf("CheckCancel(%s, %d) = %v, want nil", tt.status, tt.payments, err)
			}
			continue
		}
		wantCode(t, err, KindConflict, tt.code, "")
	}
}

func TestAmountRemaining(t *testing.T) {
	for _, tt := range []struct {
		status             InvoiceStatus
		amount, paid, want Millis
	}{
		{StatusUnpaid, 1000, 0, 1000}, {StatusUnderpaid, 1000, 1, 999}, {StatusUnderpaid, 1000, 999, 1},
		{StatusPaid, 1000, 1000, 0}, {StatusPaid, 1000, 5000, 0},
		{StatusPaid, 1000, 999, 0},      // paid within the underpayment tolerance owes nothing
		{StatusExpired, 1000, 400, 600}, // an expired invoice still shows what was missing
	} {
		inv := &Invoice{Status: tt.status, Amount: tt.amount, AmountPaid: tt.paid}
		if got := inv.AmountRemaining(); got != tt.want {
			t.Errorf("AmountRemaining(%d paid of %d) = %d, want %d", tt.paid, tt.amount, got, tt.want)
		}
	}
}
