package main

import (
	"fmt"
	"io"
	"math/big"
	"sort"
	"strconv"

	"github.com/kassapay/kassa"
)

// waitingRefund is a refund that waits for a gas wallet, as `kassa wallet`
// shows it: pending (the wallet is to pay it now) or awaiting_address (once the
// payor gives an address).
type waitingRefund struct {
	ID            string             `json:"id"`
	InvoiceID     string             `json:"invoice_id"`
	MerchantID    int64              `json:"merchant_id"`
	Status        kassa.RefundStatus `json:"status"`
	TokenSymbol   string             `json:"token_symbol"`
	AmountUnits   string             `json:"amount_token_units"`
	Amount        string             `json:"amount_token"`
	AmountUSD     string             `json:"amount_usd_decimal"`
	Address       string             `json:"address,omitempty"`
	Reason        string             `json:"reason,omitempty"`         // the merchant's
	FailureReason string             `json:"failure_reason,omitempty"` // why it waits, as the sender last said
	CreatedAt     string             `json:"created_at"`
}

// refundNeed is what the refunds waiting for a gas wallet come to in one token,
// and whether the wallet's balance of it covers the pending ones.
type refundNeed struct {
	TokenSymbol string `json:"token_symbol"`
	Pending     int    `json:"pending"`
	AmountUnits string `json:"amount_token_units"` // of the pending ones
	Amount      string `json:"amount_token"`
	AmountUSD   string `json:"amount_usd_decimal"`
	// Awaiting counts the refunds awaiting the payor's address, and
	// AwaitingAmount what they will need once claimed.
	Awaiting       int    `json:"awaiting_address"`
	AwaitingAmount string `json:"awaiting_amount_token"`
	Balance        string `json:"balance,omitempty"` // what the wallet holds; "" when unknown
	Covered        *bool  `json:"covered,omitempty"` // nil when the balance is unknown
	ShortBy        string `json:"short_by,omitempty"`
}

// refundNeeds sums refunds by token (in the order of their token ids) and, when
// balance knows the wallet's holding of a token (symbol → base units; nil: no
// balances), says whether it covers the pending ones and by how much it falls
// short. The coin's figure compares the refunds with the balance alone: the gas
// of every waiting payout is the need on the payouts' line.
func refundNeeds(refunds []*kassa.Refund, balance map[string]*big.Int) []refundNeed {
	type sum struct {
		sym                   string
		order                 int64
		decimals              int
		n, waiting            int
		units, usd, awaitings *big.Int
	}
	by := map[int64]*sum{}
	for _, r := range refunds {
		s := by[r.TokenID]
		if s == nil {
			s = &sum{sym: r.TokenSymbol, order: r.TokenID, decimals: r.Decimals, units: new(big.Int), usd: new(big.Int), awaitings: new(big.Int)}
			by[r.TokenID] = s
		}
		if r.Status == kassa.RefundAwaitingAddress {
			s.waiting++
			s.awaitings.Add(s.awaitings, r.AmountUnits)
			continue
		}
		s.n++
		s.units.Add(s.units, r.AmountUnits)
		s.usd.Add(s.usd, big.NewInt(int64(r.AmountUSD)))
	}
	sums := make([]*sum, 0, len(by))
	for _, s := range by {
		sums = append(sums, s)
	}
	sort.Slice(sums, func(i, j int) bool { return sums[i].order < sums[j].order })
	out := make([]refundNeed, 0, len(sums))
	for _, s := range sums {
		n := refundNeed{TokenSymbol: s.sym, Pending: s.n, AmountUnits: s.units.String(), Amount: kassa.FormatUnits(s.units, s.decimals),
			AmountUSD: kassa.Millis(s.usd.Int64()).Decimal(), Awaiting: s.waiting, AwaitingAmount: kassa.FormatUnits(s.awaitings, s.decimals)}
		if have, ok := balance[s.sym]; ok && have != nil {
			covered := have.Cmp(s.units) >= 0
			n.Balance, n.Covered = kassa.FormatUnits(have, s.decimals), &covered
			if !covered {
				n.ShortBy = kassa.FormatUnits(new(big.Int).Sub(s.units, have), s.decimals)
			}
		}
		out = append(out, n)
	}
	return out
}

// waitingRefunds renders refunds for `kassa wallet`.
func waitingRefunds(refunds []*kassa.Refund) []waitingRefund {
	out := make([]waitingRefund, 0, len(refunds))
	for _, r := range refunds {
		out = append(out, waitingRefund{ID: r.ID, InvoiceID: r.InvoiceID, MerchantID: r.MerchantID, Status: r.Status,
			TokenSymbol: r.TokenSymbol, AmountUnits: r.AmountUnits.String(), Amount: kassa.FormatUnits(r.AmountUnits, r.Decimals),
			AmountUSD: r.AmountUSD.Decimal(), Address: r.Address, Reason: r.Reason, FailureReason: r.FailureReason,
			CreatedAt: kassa.FormatTime(r.CreatedAt)})
	}
	return out
}

// printRefunds prints what the refunds of g wait for: a line per token, then a
// line per refund. The merchant's reason and the sender's are quoted (Go
// syntax): a merchant's text never reaches the operator's terminal raw.
func printRefunds(w io.Writer, g gasWallet) {
	if len(g.RefundNeeds) == 0 {
		fmt.Fprintln(w, "  refunds waiting: none")
		return
	}
	for _, n := range g.RefundNeeds {
		line := fmt.Sprintf("  refunds waiting in %s: %d pending, %s %s (%s USD)", n.TokenSymbol, n.Pending, n.Amount,
			n.TokenSymbol, n.AmountUSD)
		switch {
		case n.Covered == nil:
			line += ", balance unknown"
		case *n.Covered:
			line += fmt.Sprintf(", covered (it holds %s %s)", n.Balance, n.TokenSymbol)
		default:
			line += fmt.Sprintf(", short by %s %s (it holds %s)", n.ShortBy, n.TokenSymbol, n.Balance)
		}
		if n.Awaiting > 0 {
			line += fmt.Sprintf("; %d awaiting the payor's address, %s %s more once claimed", n.Awaiting, n.AwaitingAmount, n.TokenSymbol)
		}
		fmt.Fprintln(w, line)
	}
	for _, r := range g.Refunds {
		to := "to " + r.Address
		if r.Status == kassa.RefundAwaitingAddress {
			to = "awaiting the payor's address"
		}
		line := fmt.Sprintf("    refund %s: %s %s (%s USD) %s, invoice %s, merchant %d", r.ID, r.Amount, r.TokenSymbol,
			r.AmountUSD, to, r.InvoiceID, r.MerchantID)
		if r.Reason != "" {
			line += ", reason " + strconv.Quote(r.Reason)
		}
		if r.FailureReason != "" {
			line += ", waiting: " + strconv.Quote(r.FailureReason)
		}
		fmt.Fprintln(w, line)
	}
}

// refundWarning says which tokens the wallet is short of for the pending
// refunds; "" when it covers them or its balances are unknown.
func refundWarning(g gasWallet) string {
	w := ""
	for _, n := range g.RefundNeeds {
		if n.Covered == nil || *n.Covered {
			continue
		}
		if w != "" {
			w += ", "
		}
		w += fmt.Sprintf("short by %s %s for %d pending refunds", n.ShortBy, n.TokenSymbol, n.Pending)
	}
	if w == "" {
		return ""
	}
	return fmt.Sprintf("gas wallet %s on %s (%s) is %s: they wait until it is funded",
		g.Address, g.Network, g.Environment, w)
}
