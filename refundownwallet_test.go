package kassa

import (
	"math/big"
	"testing"
)

// ownWaiting is a refund of units to addr waiting for the merchant's own
// transfer from block from.
func ownWaiting(t *testing.T, id string, units int64, addr string, from uint64) *Refund {
	t.Helper()
	return &Refund{ID: id, Status: RefundPending, TokenID: 7, Address: addr, AmountUnits: big.NewInt(units),
		OwnWallet: &OwnWalletPay{WatchFrom: from}}
}

// TestMatchOwnWalletTransfer: a transfer pays the first waiting refund of its
// amount exactly, else the first whose amount it covers; never one in another
// token, to another address, watched from a later block, already seen, or
// larger than the transfer.
func TestMatchOwnWalletTransfer(t *testing.T) {
	const to = "0x52908400098527886E0F7030069857D2E4169EE7"
	small := ownWaiting(t, "small", 100, to, 10)
	exact := ownWaiting(t, "exact", 150, to, 10)
	late := ownWaiting(t, "late", 150, to, 20)
	seen := ownWaiting(t, "seen", 150, to, 10)
	seen.OwnWallet.Seen = &Transfer{TxHash: "0x01"}
	other := ownWaiting(t, "other", 150, "0x0000000000000000000000000000000000000001", 10)
	kassaPays := ownWaiting(t, "kassa", 150, to, 10)
	kassaPays.OwnWallet = nil
	all := []*Refund{seen, other, kassaPays, small, exact, late}
	tr := func(units int64, block uint64) Transfer {
		return Transfer{To: "0x52908400098527886e0f7030069857d2e4169ee7", Amount: big.NewInt(units), Block: BlockRef{Number: block}}
	}
	cases := []struct {
		name    string
		t       Transfer
		tokenID int64
		want    string
		short   string
	}{
		{"exact amount first", tr(150, 10), 7, "exact", ""},
		{"covers the first it reaches", tr(120, 10), 7, "small", ""},
		{"more than every amount: the first", tr(500, 30), 7, "small", ""},
		{"too small: noted on the first", tr(50, 10), 7, "", "small"},
		{"before the block watched from", tr(150, 9), 7, "", ""},
		{"another token", tr(150, 10), 8, "", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, short := MatchOwnWalletTransfer(all, c.tokenID, c.t), (*Refund)(nil)
			if got == nil { // the store notes a short transfer only when it pays none
				short = ShortOwnWalletTransfer(all, c.tokenID, c.t)
			}
			if id(got) != c.want || id(short) != c.short {
				t.Fatalf("paid %q, short %q; want %q, %q", id(got), id(short), c.want, c.short)
			}
		})
	}
}

func id(r *Refund) string {
	if r == nil {
		return ""
	}
	return r.ID
}

// TestOwnWalletChoice: the merchant may take over a pending refund with its
// address, and hand it back while no transfer was seen.
func TestOwnWalletChoice(t *testing.T) {
	seen := &OwnWalletPay{Seen: &Transfer{TxHash: "0x01"}}
	cases := []struct {
		name      string
		r         Refund
		take, let string // error codes, "" none
	}{
		{"pending", Refund{Status: RefundPending, Address: "0x01"}, "", ""},
		{"awaiting its address", Refund{Status: RefundAwaitingAddress}, "refund_not_pending", ""},
		{"sent by Kassa", Refund{Status: RefundSent, Address: "0x01"}, "refund_being_sent", ""},
		{"failed", Refund{Status: RefundFailed, Address: "0x01"}, "refund_not_pending", ""},
		{"the merchant's, waiting", Refund{Status: RefundPending, Address: "0x01", OwnWallet: &OwnWalletPay{}}, "", ""},
		{"the merchant's, seen", Refund{Status: RefundSent, Address: "0x01", OwnWallet: seen}, "refund_being_sent", "refund_being_sent"},
	}
	code := func(err error) string {
		if err == nil {
			return ""
		}
		return err.(*Error).Code
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := code(c.r.CanPayFromOwnWallet()); got != c.take {
				t.Errorf("take over: %q, want %q", got, c.take)
			}
			if got := code(c.r.CanLetKassaPay()); got != c.let {
				t.Errorf("hand back: %q, want %q", got, c.let)
			}
		})
	}
}
