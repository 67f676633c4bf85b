package kassa

import (
	"math/rand/v2"
	"testing"
	"time"
)

// receipt is one payment in a simulated receipt history.
type receipt struct {
	amount    Millis
	confirmed bool
	gone      bool // failed while pending, or lost to a chain reorganisation
}

// sums adds up the receipts the way the store does.
func sums(rs []*receipt) Amounts {
	var a Amounts
	for _, r := range rs {
		switch {
		case r.gone:
		case r.confirmed:
			a.Confirmed += r.amount
		default:
			a.Pending += r.amount
		}
	}
	return a
}

// checkStatusMatches checks that status is what the amounts say for an invoice that
// was open before this change.
func checkStatusMatches(t *testing.T, status InvoiceStatus, amount, tol Millis, a Amounts, expired bool) {
	t.Helper()
	full := a.Confirmed > 0 && a.Confirmed+tol >= amount
	var want InvoiceStatus
	switch {
	case full:
		want = StatusPaid
	case expired && a.Pending == 0:
		want = StatusExpired
	case a.Confirmed > 0:
		want = StatusUnderpaid
	default:
		want = StatusUnpaid
	}
	if status != want {
		t.Fatalf("status %s, but amounts %+v of %d (tol %d, expired %v) say %s", status, a, amount, tol, expired, want)
	}
}

// A seeded random walk over receipt histories: receipts appear pending or confirmed,
// pending ones confirm or fail, confirmed ones may be lost to a reorganisation, and
// time passes expires_at. After every step the status is what the amounts say, and
// a final status never changes.
func TestLifecycleRandomHistories(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2026))
	seen := map[InvoiceStatus]int{}
	for run := 0; run < 5000; run++ {
		amount := Millis(10 + rng.IntN(100000))
		tol := Millis(0)
		if rng.IntN(3) == 0 {
			tol = Millis(rng.IntN(int(amount) / 10))
		}
		now := testExpiry.Add(-time.Duration(1+rng.IntN(10)) * time.Minute)
		status := StatusUnpaid
		var rs []*receipt
		for step := 0; step < 1+rng.IntN(12); step++ {
			switch op := rng.IntN(10); {
			case op < 4:
				rs = append(rs, &receipt{amount: Millis(1 + rng.IntN(int(amount))), confirmed: op < 2})
			case op < 6 && len(rs) > 0:
				if r := rs[rng.IntN(len(rs))]; !r.gone {
					r.confirmed = true
				}
			case op < 7 && len(rs) > 0:
				rs[rng.IntN(len(rs))].gone = true
			case op < 8:
				if rng.IntN(4) == 0 {
					status = StatusCanceled
				}
			default:
				now = now.Add(time.Duration(rng.IntN(5)) * time.Minute)
			}
			before := status
			a := sums(rs)
			status = NextStatus(status, amount, a, tol, testExpiry, now)
			seen[status]++
			if before.Final() {
				if status != before {
					t.Fatalf("run %d: final %s became %s", run, before, status)
				}
				continue
			}
			checkStatusMatches(t, status, amount, tol, a, !now.Before(testExpiry))
			var want Amounts
			for _, r := range rs {
				if !r.gone && r.confirmed {
					want.Confirmed += r.amount
				} else if !r.gone {
					want.Pending += r.amount
				}
			}
			if want != a || a.Confirmed < 0 || a.Pending < 0 {
				t.Fatalf("run %d: amounts %+v, want %+v", run, a, want)
			}
		}
	}
	for _, s := range InvoiceStatuses {
		if seen[s] < 100 {
			t.Errorf("the walk reached %s only %d times", s, seen[s])
		}
	}
}

// Confirmed receipts applied one by one reach the same status in any order, and the
// same status as all of them applied at once.
func TestLifecycleOrderIndependent(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	for run := 0; run < 5000; run++ {
		amount := Millis(10 + rng.IntN(50000))
		tol := Millis(rng.IntN(3)) * Millis(rng.IntN(int(amount)/10+1))
		rs := make([]Millis, 1+rng.IntN(8))
		var total Millis
		for i := range rs {
			rs[i] = Millis(1 + rng.IntN(int(amount)/2+1))
			total += rs[i]
		}
		expired := rng.IntN(4) == 0
		now := beforeExp
		if expired {
			now = testExpiry.Add(time.Second)
		}
		all := NextStatus(StatusUnpaid, amount, Amounts{Confirmed: total}, tol, testExpiry, now)
		for perm := 0; perm < 4; perm++ {
			rng.Shuffle(len(rs), func(i, j int) { rs[i], rs[j] = rs[j], rs[i] })
			// Every receipt is seen pending before expiry, then they confirm one by
			// one at now (which may be past expiry: pending money holds it open).
			status := StatusUnpaid
			got := Amounts{}
			for _, m := range rs {
				got.Pending += m
				status = NextStatus(status, amount, got, tol, testExpiry, beforeExp)
			}
			if status != StatusUnpaid {
				t.Fatalf("run %d: pending money alone gives %s", run, status)
			}
			for _, m := range rs {
				got.Pending -= m
				got.Confirmed += m
				status = NextStatus(status, amount, got, tol, testExpiry, now)
			}
			if got.Confirmed != total {
				t.Fatalf("run %d: confirmed %d, want %d", run, got.Confirmed, total)
			}
			if status != all {
				t.Fatalf("run %d: receipts %v of %d (tol %d, expired %v) one by one give %s, at once %s",
					run, rs, amount, tol, expired, status, all)
			}
		}
	}
}
