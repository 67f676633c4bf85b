package kassa

import (
	"strings"
)

// A refund the gas wallet cannot pay waits pending; the merchant may pay it from
// their own wallet instead (decisions.md, "Refunds, and money that needs a
// person"). Choosing it withdraws the refund from the payout executor while its
// transfer is unsigned; the chain watcher then looks for a transfer of the
// refund's token to its address, of at least its amount, from the block after
// the one last processed when it was chosen, and marks the refund sent with it,
// confirmed with the network's confirmations.

// RefundPaidByMerchant is the payor of a refund the merchant pays from their own wallet.
const RefundPaidByMerchant = "merchant"

// OwnWalletWaiting is the failure_reason of a refund waiting for the merchant's
// own transfer: the API, which has no field for who pays, says it there.
const OwnWalletWaiting = "paid from the merchant's own wallet: waiting for that transfer"

// OwnWalletPay is how far the merchant's own payment of a refund went.
type OwnWalletPay struct {
	// WatchFrom is the first block a transfer paying it may be in: the one
	// after the last the watcher had processed when the merchant chose it.
	WatchFrom uint64
	// Seen is the transfer taken as paying it (TxHash, LogIndex, Block):
	// zero until one is seen; given back when a reorganisation removes its block.
	Seen *Transfer
}

// CanPayFromOwnWallet reports whether the merchant may take r over and pay it
// from their own wallet: a pending refund with its address, not already theirs.
// Whether Kassa has signed its transfer is refund.DecideOwnWallet's check (its payout).
func (r *Refund) CanPayFromOwnWallet() error {
	switch {
	case r.Status == RefundSent || r.Status == RefundConfirmed:
		return refundBeingSent()
	case r.Status != RefundPending || r.Address == "":
		return Errorf(KindConflict, "refund_not_pending",
			"Only a pending refund with its address can be paid from your own wallet; this one is %s.", r.Status)
	}
	return nil
}

// CanLetKassaPay reports whether the merchant may hand a refund they chose to pay
// back to Kassa: while no transfer paying it was seen, so it is never paid twice.
func (r *Refund) CanLetKassaPay() error {
	if r.OwnWallet != nil && (r.Status != RefundPending || r.OwnWallet.Seen != nil) {
		return refundBeingSent()
	}
	return nil
}

func refundBeingSent() error {
	return Errorf(KindConflict, "refund_being_sent",
		"This refund's transfer is already signed or seen on chain; it is on its way and cannot change hands.")
}

// MatchOwnWalletTransfer picks the refund a transfer t of token tokenID pays
// among waiting, the merchant's own refunds on t's network in the order they were
// made: a pending one in that token, to t's recipient, watched from t's block or
// before, whose amount t reaches. A transfer of exactly a refund's amount pays
// the first such refund; otherwise the first whose amount it covers (a payor is
// never short because the merchant sent more). Nil when t pays none.
func MatchOwnWalletTransfer(waiting []*Refund, tokenID int64, t Transfer) *Refund {
	var covered *Refund
	for _, r := range waiting {
		if !ownWalletFor(r, tokenID, t) {
			continue
		}
		switch c := t.Amount.Cmp(r.AmountUnits); {
		case c == 0:
			return r
		case c > 0 && covered == nil:
			covered = r
		}
	}
	return covered
}

// ShortOwnWalletTransfer is the refund, among waiting (in the order they were
// made), that a transfer too small to pay any was probably meant for: the first
// to its recipient in its token, to say so on it; nil when there is none.
func ShortOwnWalletTransfer(waiting []*Refund, tokenID int64, t Transfer) *Refund {
	for _, r := range waiting {
		if ownWalletFor(r, tokenID, t) && t.Amount.Cmp(r.AmountUnits) < 0 {
			return r
		}
	}
	return nil
}

// ownWalletFor reports whether t could pay r: r waits for the merchant's own
// transfer of tokenID to t's recipient, from t's block or before.
func ownWalletFor(r *Refund, tokenID int64, t Transfer) bool {
	return r.OwnWallet != nil && r.OwnWallet.Seen == nil && r.Status == RefundPending && r.TokenID == tokenID &&
		strings.EqualFold(r.Address, t.To) && t.Block.Number >= r.OwnWallet.WatchFrom && t.Amount != nil
}

// OwnWalletURI is the EIP-681 link of the exact transfer that pays r from the
// merchant's own wallet, in token t on a chain of chainID.
func OwnWalletURI(r *Refund, t Token, chainID int64) (string, error) {
	return PaymentURI(t, chainID, r.Address, r.AmountUnits)
}
