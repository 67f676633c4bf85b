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
		want      ReceiptStatus
	}{
		{"unconfirmed", StatusUnpaid, 1, arrival(false, 1, 1000, 1000), 0, ReceiptPending},
		{"confirmed in full", StatusUnpaid, 1, arrival(true, 1, 1000, 1000), 0, ReceiptConfirmed},
		{"overpaid", StatusUnpaid, 1, arrival(true, 1, 5000, 1000), 0, ReceiptConfirmed},
		{"short", StatusUnpaid, 1, arrival(true, 1, 400, 1000), 0, ReceiptUnderpaid},
		{"short within tolerance", StatusUnpaid, 1, arrival(true, 1, 990, 1000), 10, ReceiptConfirmed},
		{"one milli past tolerance", StatusUnpaid, 1, arrival(true, 1, 989, 1000), 10, ReceiptUnderpaid},
		{"rest of an underpaid invoice", StatusUnderpaid, 1, arrival(true, 1, 600, 600), 0, ReceiptConfirmed},
		{"wrong token", StatusUnderpaid, 1, arrival(true, 2, 600, 600), 0, ReceiptManualRetry},
		{"no token locked yet", StatusUnpaid, 0, arrival(true, 2, 1000, 1000), 0, ReceiptConfirmed},
		{"late: paid", StatusPaid, 1, arrival(true, 1, 1000, 0), 0, ReceiptManualRetry},
		{"late: expired", StatusExpired, 1, arrival(false, 1, 1000, 1000), 0, ReceiptManualRetry},
		{"late: canceled", StatusCanceled, 1, arrival(true, 1, 1000, 1000), 0, ReceiptManualRetry},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ClassifyReceipt(tt.current, tt.locked, tt.a, tt.tolerance); got != tt.want {
				t.Errorf("ClassifyReceipt = %s, want %s", got, tt.want)
			}
		})
	}
}

// newReceipt builds a receipt of amount millis in status s, seen at seen.
func newReceipt(t *testing.T, s ReceiptStatus, amount Millis, seen time.Time) *Receipt {
	t.Helper()
	return &Receipt{Status: s, AmountUSD: amount, AmountUnits: big.NewInt(int64(amount)), SeenAt: seen,
		FromAddress: "0x52908400098527886E0F7030069857D2E4169EE7", Network: "bsc-testnet"}
}

func TestRecompute(t *testing.T) {
	t0 := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	open := func() *Invoice {
		return &Invoice{Status: StatusUnpaid, Amount: 1000, ExpiresAt: t0.Add(time.Hour)}
	}
	tests := []struct {
		name                  string
		receipts              []ReceiptStatus
		amounts               []Millis
		wantStatus            InvoiceStatus
		wantPaid, wantPending Millis
		wantPaidAt            bool
	}{
		{"nothing", nil, nil, StatusUnpaid, 0, 0, false},
		{"pending only", []ReceiptStatus{ReceiptPending}, []Millis{1000}, StatusUnpaid, 0, 1000, false},
		{"part confirmed", []ReceiptStatus{ReceiptUnderpaid}, []Millis{400}, StatusUnderpaid, 400, 0, false},
		{"rest pending", []ReceiptStatus{ReceiptUnderpaid, ReceiptPending}, []Millis{400, 600}, StatusUnderpaid, 400, 600, false},
		{"paid in two", []ReceiptStatus{ReceiptUnderpaid, ReceiptConfirmed}, []Millis{400, 600}, StatusPaid, 1000, 0, true},
		{"overpaid", []ReceiptStatus{ReceiptConfirmed}, []Millis{1500}, StatusPaid, 1500, 0, true},
		{"manual money aside", []ReceiptStatus{ReceiptManualRetry}, []Millis{1000}, StatusUnpaid, 0, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			inv := open()
			var rs []*Receipt
			for i, s := range tt.receipts {
				rs = append(rs, newReceipt(t, s, tt.amounts[i], t0.Add(time.Duration(i)*time.Minute)))
			}
			inv.Recompute(rs, 0, t0.Add(10*time.Minute))
			if inv.Status != tt.wantStatus || inv.AmountPaid != tt.wantPaid || inv.AmountPending != tt.wantPending ||
				(inv.PaidAt != nil) != tt.wantPaidAt {
				t.Fatalf("recomputed %s paid %d pending %d paid_at %v", inv.Status, inv.AmountPaid, inv.AmountPending, inv.PaidAt)
			}
			if counted := len(rs) > 0 && tt.receipts[0] != ReceiptManualRetry; counted != (inv.LastPaymentAt != nil) ||
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
	inv.Recompute([]*Receipt{newReceipt(t, ReceiptUnderpaid, 400, t0)}, 0, t0)
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
	statuses := []ReceiptStatus{ReceiptPending, ReceiptConfirmed, ReceiptUnderpaid, ReceiptManualRetry}
	t0 := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	for run := 0; run < 3000; run++ {
		amount := Millis(1 + rng.IntN(10_000))
		tolerance := Millis(rng.IntN(50))
		now := t0.Add(time.Duration(rng.IntN(120)) * time.Minute)
		var rs []*Receipt
		var confirmed, pending Millis
		for i := rng.IntN(6); i > 0; i-- {
			r := newReceipt(t, statuses[rng.IntN(len(statuses))], Millis(1+rng.IntN(5000)), t0.Add(time.Duration(rng.IntN(60))*time.Minute))
			switch r.Status {
			case ReceiptConfirmed, ReceiptUnderpaid:
				confirmed += r.AmountUSD
			case ReceiptPending:
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
		shuffled := append([]*Receipt(nil), rs...)
		rng.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
		again := &Invoice{Status: StatusUnpaid, Amount: amount, ExpiresAt: inv.ExpiresAt}
		again.Recompute(shuffled, tolerance, now)
		if again.Status != inv.Status || again.AmountPaid != inv.AmountPaid || again.AmountPending != inv.AmountPending {
			t.Fatalf("run %d: order changed the result", run)
		}
	}
}
