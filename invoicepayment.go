package kassa

import (
	"math/big"
	"time"
)

// PaymentStatus is where one payment (a transfer found on chain) stands.
type PaymentStatus string

// Invoice payment statuses (decisions.md, invoice lifecycle).
const (
	PaymentPending     PaymentStatus = "pending"      // seen, not yet confirmed
	PaymentConfirmed   PaymentStatus = "confirmed"    // confirmed, the quote's amount or more
	PaymentUnderpaid   PaymentStatus = "underpaid"    // confirmed, below what the locked quote asked
	PaymentManualRetry PaymentStatus = "manual_retry" // needs a person: late, wrong token, failed settlement
)

// SettlementStatus is where the merchant's share of one receipt stands.
type SettlementStatus string

// Settlement statuses (docs/api.md 3.2).
const (
	SettlementPending    SettlementStatus = "pending"
	SettlementProcessing SettlementStatus = "processing"
	SettlementSettled    SettlementStatus = "settled"
	SettlementFailed     SettlementStatus = "failed"
	SettlementManual     SettlementStatus = "manual" // no route exists
)

// Payment is one payment toward an invoice: a transfer identified by (network, tx
// hash, log index), so the same transfer can never count twice. Its USD value is
// taken at the rate the invoice's quote locked.
type Payment struct {
	ID          string
	InvoiceID   string
	MerchantID  int64
	Environment Environment
	Network     string
	TxHash      string
	LogIndex    int64
	TokenID     int64
	FromAddress string
	AmountUnits *big.Int // token base units
	AmountUSD   Millis   // value at the locked rate
	Status      PaymentStatus
	// Confirmations counts blocks on top of the transfer's block, as last seen.
	Confirmations int
	SeenAt        time.Time
	ConfirmedAt   *time.Time
	Settlement    SettlementStatus
	// SettlementTxHash is the transaction that paid the merchant, once settled.
	SettlementTxHash *string
	// BlockNumber is the block the transfer was last seen in; 0 for a simulated
	// payment, which is in no block.
	BlockNumber uint64
	// BlockHash is that block's hash while it is on the canonical chain; "" once
	// the block left it (a reorganisation), and for a simulated payment.
	BlockHash string
	// AttentionReason is why the payment needs a person ("" when it needs none);
	// Resolution, ResolvedAt and ResolutionNote how one resolved it.
	AttentionReason AttentionReason
	Resolution      Resolution
	ResolvedAt      *time.Time
	ResolutionNote  string
}

// OnChain reports whether the payment was seen in a block (not simulated).
func (r *Payment) OnChain() bool { return r.BlockNumber > 0 }

// Orphaned reports whether the payment's block left the canonical chain and its
// transaction has not been seen in a canonical block since.
func (r *Payment) Orphaned() bool { return r.BlockNumber > 0 && r.BlockHash == "" }

// StaleReport reports whether in, a report of the transfer r records, says less
// than r already knows: from the same block, with fewer confirmations, or not
// confirmed while r is. A watcher reading a lagging node, or a report delivered
// late, sends these; they change nothing and emit nothing. A report from another
// block (a reorganisation moved the transfer, or brought an orphaned one back) is
// never stale: the reorganisation rules apply to it.
func (r *Payment) StaleReport(in PaymentInput) bool {
	if in.BlockNumber != r.BlockNumber || in.BlockHash != r.BlockHash {
		return false
	}
	confirmed := r.Status == PaymentConfirmed || r.Status == PaymentUnderpaid
	return in.Confirmations < r.Confirmations || (!in.Confirmed && confirmed)
}

// ValidTxHash reports whether s is an EVM transaction hash: 0x followed by 64 hex
// digits (either case).
func ValidTxHash(s string) bool {
	if len(s) != 66 || s[:2] != "0x" {
		return false
	}
	for _, c := range s[2:] {
		if !('0' <= c && c <= '9') && !('a' <= c && c <= 'f') && !('A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}

// PaymentAmounts adds up receipts into the amounts the lifecycle works from:
// confirmed and underpaid receipts are confirmed money, pending ones pending money;
// manual_retry money is kept aside for a person and counts for neither.
func PaymentAmounts(rs []*Payment) Amounts {
	var a Amounts
	for _, r := range rs {
		switch r.Status {
		case PaymentConfirmed, PaymentUnderpaid:
			a.Confirmed += r.AmountUSD
		case PaymentPending:
			a.Pending += r.AmountUSD
		}
	}
	return a
}

// Arrival describes a transfer as it reaches an invoice, for ClassifyReceipt.
type Arrival struct {
	Confirmed bool      // the transfer has its network's confirmation depth
	TokenID   int64     // what was paid
	SeenAt    time.Time // when Kassa first saw it
	// Wanted is what the locked quote asked for in USD at this point: the invoice's
	// remaining amount when the payment was seen.
	Wanted Millis
	Amount Millis // the transfer's USD value (PaymentInput.AmountUSD)
	// Unpriced says no rate could value the transfer (PaymentInput.Unpriced).
	Unpriced bool
}

// ClassifyPayment is the receipt half of the lifecycle as a pure function: the
// status a transfer to an invoice in status current gets.
//
//   - An invoice that was already final (paid, expired, canceled) when the money
//     was seen gets manual_retry: late money is kept for a person, never dropped
//     and never flips the invoice by itself.
//   - A token other than the one locked gets manual_retry (while underpaid, only
//     the locked token on the original network may pay the rest).
//   - A transfer no rate could value (Unpriced) gets manual_retry.
//   - Unconfirmed: pending. Confirmed: confirmed, or underpaid when below what
//     was still wanted (beyond the merchant's tolerance).
func ClassifyPayment(current InvoiceStatus, lockedToken int64, a Arrival, tolerance Millis) PaymentStatus {
	switch {
	case SetAsideReason(current, lockedToken, a) != "":
		return PaymentManualRetry
	case !a.Confirmed:
		return PaymentPending
	case a.Amount+tolerance < a.Wanted:
		return PaymentUnderpaid
	default:
		return PaymentConfirmed
	}
}

// Recompute sets an invoice's amounts, status and payment fields from all its
// receipts at now. It is the only way payments change an invoice, so replaying the
// same receipts changes nothing, and a receipt that disappears (a chain
// reorganisation) is undone by the next recompute.
func (inv *Invoice) Recompute(rs []*Payment, tolerance Millis, now time.Time) {
	got := PaymentAmounts(rs)
	before := inv.Status
	inv.AmountPaid, inv.AmountPending = got.Confirmed, got.Pending
	inv.Status = NextStatus(inv.Status, inv.Amount, got, tolerance, inv.ExpiresAt, now)
	if inv.Status == StatusExpired && accepted(rs) && got.Confirmed > 0 && got.Confirmed+tolerance >= inv.Amount {
		// The one way out of a final status: money a merchant accepted (money
		// set aside on an expired invoice, credited by a person) pays it.
		inv.Status = StatusPaid
	}
	if inv.Status == StatusPaid && before != StatusPaid {
		t := now
		inv.PaidAt = &t
	}
	var latest *Payment
	for _, r := range rs {
		if r.Status == PaymentManualRetry {
			continue
		}
		if latest == nil || r.SeenAt.After(latest.SeenAt) {
			latest = r
		}
	}
	if latest != nil {
		seen, from, network := latest.SeenAt, latest.FromAddress, latest.Network
		inv.LastPaymentAt, inv.PayerWalletAddress, inv.PayerWalletNetwork = &seen, &from, &network
	}
}

// accepted reports whether a merchant accepted any of rs.
func accepted(rs []*Payment) bool {
	for _, r := range rs {
		if r.Resolution == ResolutionAccepted {
			return true
		}
	}
	return false
}

// ArrivalStatus is the invoice status a newly seen transfer is judged against: an
// invoice past its expiry counts as expired even while an earlier payment is still
// pending (that payment may confirm; new money is late and kept for a person).
func (inv *Invoice) ArrivalStatus(now time.Time) InvoiceStatus {
	if !inv.Status.Final() && !now.Before(inv.ExpiresAt) {
		return StatusExpired
	}
	return inv.Status
}
