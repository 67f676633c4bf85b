package kassa

import (
	"math/big"
	"math/rand/v2"
	"testing"
	"time"
)

func TestClassifyReceipt(t *testing.T) {
	seen := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	arrival := func(confirmed bool, token int64, amount, wanted Millis) Arrival {
		return Arrival{Confirmed: confirmed, TokenID: token, SeenAt: seen, Amount: amount, Wanted: wanted}
	}
	tests := []struct {
		name      string
		current   InvoiceStatus
		locked    int64
		a         Arrival
		tolerance Millis
		want      PaymentStatus
	}{
		{"unconfirmed", StatusUnpaid, 1, arrival(false, 1, 1000, 1000), 0, PaymentPending},
		{"confirmed in full", StatusUnpaid, 1, arrival(true, 1, 1000, 1000), 0, PaymentConfirmed},
		{"overpaid", StatusUnpaid, 1, arrival(true, 1, 5000, 1000), 0, PaymentConfirmed},
		{"short", StatusUnpaid, 1, arrival(true, 1, 400, 1000), 0, PaymentUnderpaid},
		{"short within tolerance", StatusUnpaid, 1, arrival(true, 1, 990, 1000), 10, PaymentConfirmed},
		{"one milli past tolerance", StatusUnpaid, 1, arrival(true, 1, 989, 1000), 10, PaymentUnderpaid},
		{"rest of an underpaid invoice", StatusUnderpaid, 1, arrival(true, 1, 600, 600), 0, PaymentConfirmed},
		{"wrong token", StatusUnderpaid, 1, arrival(true, 2, 600, 600), 0, PaymentManualRetry},
		{"no token locked yet", StatusUnpaid, 0, arrival(true, 2, 1000, 1000), 0, PaymentConfirmed},
		{"late: paid", StatusPaid, 1, arrival(true, 1, 1000, 0), 0, PaymentManualRetry},
		{"late: expired", StatusExpired, 1, arrival(false, 1, 1000, 1000), 0, PaymentManualRetry},
		{"late: canceled", StatusCanceled, 1, arrival(true, 1, 1000, 1000), 0, PaymentManualRetry},
		{"no rate could value it", StatusUnpaid, 1, Arrival{Confirmed: true, TokenID: 1, SeenAt: seen, Wanted: 1000, Unpriced: true}, 0, PaymentManualRetry},
		{"unpriced and unconfirmed", StatusUnpaid, 1, Arrival{TokenID: 1, SeenAt: seen, Wanted: 1000, Unpriced: true}, 0, PaymentManualRetry},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ClassifyPayment(tt.current, tt.locked, tt.a, tt.tolerance); got != tt.want {
				t.Errorf("ClassifyReceipt = %s, want %s", got, tt.want)
			}
		})
	}
}

// newReceipt builds a receipt of amount millis in status s, seen at seen.
func newReceipt(t *testing.T, s PaymentStatus, amount Millis, seen time.Time) *Payment {
	t.Helper()
	return &Payment{Status: s, AmountUSD: amount, AmountUnits: big.NewInt(int64(amount)), SeenAt: seen,
		FromAddress: "0x52908400098527886E0F7030069857D2E4169EE7", Network: "bsc-testnet"}
}

func TestRecompute(t *testing.T) {
	t0 := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	open := func() *Invoice {
		return &Invoice{Status: StatusUnpaid, Amount: 1000, ExpiresAt: t0.Add(time.Hour)}
	}
	tests := []struct {
		name                  string
		receipts              []PaymentStatus
		amounts               []Millis
		wantStatus            InvoiceStatus
		wantPaid, wantPending Millis
		wantPaidAt            bool
	}{
		{"nothing", nil, nil, StatusUnpaid, 0, 0, false},
		{"pending only", []PaymentStatus{PaymentPending}, []Millis{1000}, StatusUnpaid, 0, 1000, false},
		{"part confirmed", []PaymentStatus{PaymentUnderpaid}, []Millis{400}, StatusUnderpaid, 400, 0, false},
		{"rest pending", []PaymentStatus{PaymentUnderpaid, PaymentPending}, []Millis{400, 600}, StatusUnderpaid, 400, 600, false},
		{"paid in two", []PaymentStatus{PaymentUnderpaid, PaymentConfirmed}, []Millis{400, 600}, StatusPaid, 1000, 0, true},
		{"overpaid", []PaymentStatus{PaymentConfirmed}, []Millis{1500}, StatusPaid, 1500, 0, true},
		{"manual money aside", []PaymentStatus{PaymentManualRetry}, []Millis{1000}, StatusUnpaid, 0, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			inv := open()
			var rs []*Payment
			for i, s := range tt.receipts {
				rs = append(rs, newReceipt(t, s, tt.amounts[i], t0.Add(time.Duration(i)*time.Minute)))
			}
			inv.Recompute(rs, 0, t0.Add(10*time.Minute))
			if inv.Status != tt.wantStatus || inv.AmountPaid != tt.wantPaid || inv.AmountPending != tt.wantPending ||
				(inv.PaidAt != nil) != tt.wantPaidAt {
				t.Fatalf("recomputed %s paid %d pending %d paid_at %v", inv.Status, inv.AmountPaid, inv.AmountPending, inv.PaidAt)
			}
			if counted := len(rs) > 0 && tt.receipts[0] != PaymentManualRetry; counted != (inv.LastPaymentAt != nil) ||
				counted != (inv.PayerWalletAddress != nil) {
				t.Errorf("last_payment_at %v payer %v", inv.LastPaymentAt, inv.PayerWalletAddress)
			}
			// Replaying the same receipts changes nothing, paid_at included.
			again := *inv
			again.Recompute(rs, 0, t0.Add(20*time.Minute))
			if again.Status != inv.Status || again.AmountPaid != inv.AmountPaid || again.AmountPending != inv.AmountPending ||
				(inv.PaidAt != nil && !again.PaidAt.Equal(*inv.PaidAt)) {
				t.Errorf("replay changed the invoice: %+v then %+v", inv, again)
			}
		})
	}

	// A receipt lost to a reorganisation moves underpaid back to unpaid.
	inv := open()
	inv.Recompute([]*Payment{newReceipt(t, PaymentUnderpaid, 400, t0)}, 0, t0)
	inv.Recompute(nil, 0, t0)
	if inv.Status != StatusUnpaid || inv.AmountPaid != 0 {
		t.Errorf("after the reorg: %s paid %d", inv.Status, inv.AmountPaid)
	}
}

// TestRecomputeProperty: for random receipt sets, the invoice's amounts add up, its
// status is what the amounts say, and recomputing from the same receipts in another
// order changes nothing.
func TestRecomputeProperty(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	statuses := []PaymentStatus{PaymentPending, PaymentConfirmed, PaymentUnderpaid, PaymentManualRetry}
	t0 := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	for run := 0; run < 3000; run++ {
		amount := Millis(1 + rng.IntN(10_000))
		tolerance := Millis(rng.IntN(50))
		now := t0.Add(time.Duration(rng.IntN(120)) * time.Minute)
		var rs []*Payment
		var confirmed, pending Millis
		for i := rng.IntN(6); i > 0; i-- {
			r := newReceipt(t, statuses[rng.IntN(len(statuses))], Millis(1+rng.IntN(5000)), t0.Add(time.Duration(rng.IntN(60))*time.Minute))
			switch r.Status {
			case PaymentConfirmed, PaymentUnderpaid:
				confirmed += r.AmountUSD
			case PaymentPending:
				pending += r.AmountUSD
			}
			rs = append(rs, r)
		}
		inv := &Invoice{Status: StatusUnpaid, Amount: amount, ExpiresAt: t0.Add(time.Hour)}
		inv.Recompute(rs, tolerance, now)
		if inv.AmountPaid != confirmed || inv.AmountPending != pending {
			t.Fatalf("run %d: paid %d pending %d, want %d %d", run, inv.AmountPaid, inv.AmountPending, confirmed, pending)
		}
		want := NextStatus(StatusUnpaid, amount, Amounts{confirmed, pending}, tolerance, inv.ExpiresAt, now)
		if inv.Status != want {
			t.Fatalf("run %d: status %s, want %s", run, inv.Status, want)
		}
		if (inv.Status == StatusPaid) != (confirmed > 0 && confirmed+tolerance >= amount) {
			t.Fatalf("run %d: status %s does not match %d confirmed of %d", run, inv.Status, confirmed, amount)
		}
		shuffled := append([]*Payment(nil), rs...)
		rng.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
		again := &Invoice{Status: StatusUnpaid, Amount: amount, ExpiresAt: inv.ExpiresAt}
		again.Recompute(shuffled, tolerance, now)
		if again.Status != inv.Status || again.AmountPaid != inv.AmountPaid || again.AmountPending != inv.AmountPending {
			t.Fatalf("run %d: order changed the result", run)
		}
	}
}

// TestStaleReportRule: a report older than the receipt from the same block is stale; one from another block never is (store: TestIngestStaleReport).
func TestStaleReportRule(t *testing.T) {
	r := &Payment{Status: PaymentConfirmed, Confirmations: 5, BlockNumber: 10, BlockHash: "0xa"}
	tests := []struct {
		name string
		in   PaymentInput
		want bool
	}{
		{"pending, same block", PaymentInput{Confirmations: 6, BlockNumber: 10, BlockHash: "0xa"}, true},
		{"fewer, same block", PaymentInput{Confirmations: 4, Confirmed: true, BlockNumber: 10, BlockHash: "0xa"}, true},
		{"same, same block", PaymentInput{Confirmations: 5, Confirmed: true, BlockNumber: 10, BlockHash: "0xa"}, false},
		{"more, same block", PaymentInput{Confirmations: 6, Confirmed: true, BlockNumber: 10, BlockHash: "0xa"}, false},
		{"pending, another block", PaymentInput{Confirmations: 1, BlockNumber: 12, BlockHash: "0xb"}, false},
		{"pending, same height on a fork", PaymentInput{Confirmations: 1, BlockNumber: 10, BlockHash: "0xc"}, false},
	}
	for _, tt := range tests {
		if got := r.StaleReport(tt.in); got != tt.want {
			t.Errorf("%s: stale %v, want %v", tt.name, got, tt.want)
		}
	}
}
