package refund_test

import (
	"context"
	"crypto/sha256"
	"math/big"
	"testing"
	"time"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/outbox"
	"github.com/kassapay/kassa/refund"
)

func TestDecideCreate(t *testing.T) {
	devnet := kassa.Principal{MerchantID: 7, Environment: kassa.Devnet}
	usd := kassa.Millis(1000)
	paid := []*kassa.Payment{{ID: "p1", Network: "base", TokenID: 1, Status: kassa.PaymentConfirmed,
		AmountUnits: big.NewInt(6_000000), AmountUSD: 6000, SeenAt: time.Unix(1, 0)}}
	for _, tc := range []struct {
		name    string
		env     kassa.Environment
		token   kassa.Token
		refunds []*kassa.Refund
		code    string
	}{
		{name: "planned", env: kassa.Devnet, token: kassa.Token{ID: 1, Network: "base"}},
		{name: "other environment", env: kassa.Mainnet, token: kassa.Token{ID: 1, Network: "base"}, code: "environment_mismatch"},
		{name: "token changed meanwhile", env: kassa.Devnet, token: kassa.Token{ID: 2, Network: "base"}, code: "refund_conflict"},
		{name: "refunded already", env: kassa.Devnet, token: kassa.Token{ID: 1, Network: "base"}, code: "refund_exceeds_paid",
			refunds: []*kassa.Refund{{Network: "base", TokenID: 1, AmountUnits: big.NewInt(6_000000), AmountUSD: 6000, Status: kassa.RefundConfirmed}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req := refund.Request{ID: "ref", AmountUSD: &usd, Rate: kassa.RefundRatePaid, Token: tc.token}
			plan, err := refund.DecideCreate(devnet, req)(&kassa.Invoice{ID: "inv", MerchantID: 7, Environment: tc.env}, paid, tc.refunds)
			wantCode(t, err, tc.code)
			if err == nil && (plan.AmountUSD != usd || plan.AmountUnits.Cmp(big.NewInt(1_000000)) != 0 || plan.TokenID != 1) {
				t.Errorf("plan %+v, want 1 USD of token 1 (1_000000 units)", plan)
			}
		})
	}
}

func TestCancelDecides(t *testing.T) {
	devnet := kassa.Principal{MerchantID: 7, Environment: kassa.Devnet}
	for _, tc := range []struct {
		name   string
		env    kassa.Environment
		status kassa.RefundStatus
		payout outbox.PayoutStatus
		code   string
	}{
		{name: "awaiting its address, no payout", env: kassa.Devnet, status: kassa.RefundAwaitingAddress},
		{name: "pending, payout queued", env: kassa.Devnet, status: kassa.RefundPending, payout: outbox.PayoutQueued},
		{name: "pending, payout funding", env: kassa.Devnet, status: kassa.RefundPending, payout: outbox.PayoutFunding},
		{name: "pending, payout withdrawn for the own wallet", env: kassa.Devnet, status: kassa.RefundPending, payout: outbox.PayoutFailed},
		{name: "pending, payout signed", env: kassa.Devnet, status: kassa.RefundPending, payout: outbox.PayoutSending, code: "refund_not_cancelable"},
		{name: "sent", env: kassa.Devnet, status: kassa.RefundSent, payout: outbox.PayoutSending, code: "refund_not_cancelable"},
		{name: "canceled already", env: kassa.Devnet, status: kassa.RefundCanceled, code: "refund_not_cancelable"},
		{name: "other environment", env: kassa.Mainnet, status: kassa.RefundPending, code: "resource_missing"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &lockedRefund{r: kassa.Refund{ID: "ref", MerchantID: 7, Environment: tc.env, Status: tc.status}, payout: tc.payout}
			r, err := (&refund.Service{Store: s}).Cancel(context.Background(), devnet, "ref")
			wantCode(t, err, tc.code)
			if s.wrote != (tc.code == "") {
				t.Errorf("store wrote the cancel: %v, want %v", s.wrote, tc.code == "")
			}
			if err == nil && r.Status != kassa.RefundCanceled {
				t.Errorf("returned status %s, want canceled", r.Status)
			}
		})
	}
}

func TestClaimDecides(t *testing.T) {
	now := time.Unix(1_000_000, 0)
	const token = "claim-token"
	h := sha256.Sum256([]byte(token))
	for _, tc := range []struct {
		name    string
		status  kassa.RefundStatus
		hash    []byte
		expires time.Time
		token   string
		code    string
	}{
		{name: "claimed", status: kassa.RefundAwaitingAddress, hash: h[:], expires: now.Add(time.Hour), token: token},
		{name: "wrong token", status: kassa.RefundAwaitingAddress, hash: h[:], expires: now.Add(time.Hour), token: "other", code: "resource_missing"},
		{name: "expired", status: kassa.RefundAwaitingAddress, hash: h[:], expires: now, token: token, code: "resource_missing"},
		{name: "no claim", status: kassa.RefundPending, expires: now.Add(time.Hour), token: token, code: "resource_missing"},
		{name: "claimed already", status: kassa.RefundPending, hash: h[:], expires: now.Add(time.Hour), token: token, code: "refund_claimed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &lockedRefund{r: kassa.Refund{ID: "ref", MerchantID: 7, Status: tc.status, ClaimHash: tc.hash, ClaimExpires: tc.expires}, now: now}
			r, err := (&refund.Service{Store: s}).Claim(context.Background(), "ref", tc.token, "0x52908400098527886e0f7030069857d2e4169ee7")
			wantCode(t, err, tc.code)
			if s.wrote != (tc.code == "") {
				t.Errorf("store wrote the claim: %v, want %v", s.wrote, tc.code == "")
			}
			if err == nil && r.Address != "0x52908400098527886E0F7030069857D2E4169EE7" {
				t.Errorf("address %s, want it checksummed", r.Address)
			}
		})
	}
}

func TestOwnWalletDecides(t *testing.T) {
	devnet := kassa.Principal{MerchantID: 7, Environment: kassa.Devnet}
	const to = "0x52908400098527886E0F7030069857D2E4169EE7"
	for _, tc := range []struct {
		name    string
		env     kassa.Environment
		status  kassa.RefundStatus
		address string
		own     *kassa.OwnWalletPay
		payout  outbox.PayoutStatus
		code    string
	}{
		{name: "no payout", env: kassa.Devnet, status: kassa.RefundPending, address: to},
		{name: "payout queued", env: kassa.Devnet, status: kassa.RefundPending, address: to, payout: outbox.PayoutQueued},
		{name: "payout funding", env: kassa.Devnet, status: kassa.RefundPending, address: to, payout: outbox.PayoutFunding},
		{name: "payout failed", env: kassa.Devnet, status: kassa.RefundPending, address: to, payout: outbox.PayoutFailed},
		{name: "payout signed", env: kassa.Devnet, status: kassa.RefundPending, address: to, payout: outbox.PayoutSending, code: "refund_being_sent"},
		{name: "payout done", env: kassa.Devnet, status: kassa.RefundPending, address: to, payout: outbox.PayoutDone, code: "refund_being_sent"},
		{name: "sent", env: kassa.Devnet, status: kassa.RefundSent, address: to, payout: outbox.PayoutSending, code: "refund_being_sent"},
		{name: "awaiting its address", env: kassa.Devnet, status: kassa.RefundAwaitingAddress, code: "refund_not_pending"},
		{name: "other environment", env: kassa.Mainnet, status: kassa.RefundPending, address: to, code: "resource_missing"},
		{name: "the merchant's already", env: kassa.Devnet, status: kassa.RefundSent, address: to, payout: outbox.PayoutFailed,
			own: &kassa.OwnWalletPay{WatchFrom: 3}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &lockedRefund{r: kassa.Refund{ID: "ref", MerchantID: 7, Environment: tc.env, Status: tc.status,
				Address: tc.address, OwnWallet: tc.own}, payout: tc.payout}
			r, err := (&refund.Service{Store: s}).PayFromOwnWallet(context.Background(), devnet, "ref")
			wantCode(t, err, tc.code)
			if want := tc.code == "" && tc.own == nil; s.wrote != want {
				t.Errorf("store wrote the take-over: %v, want %v", s.wrote, want)
			}
			if err == nil && r.OwnWallet == nil {
				t.Error("the refund is not the merchant's")
			}
		})
	}
}

func TestLetKassaPayDecides(t *testing.T) {
	devnet := kassa.Principal{MerchantID: 7, Environment: kassa.Devnet}
	seen := &kassa.Transfer{TxHash: "0xabc"}
	for _, tc := range []struct {
		name   string
		env    kassa.Environment
		status kassa.RefundStatus
		own    *kassa.OwnWalletPay
		code   string
		wrote  bool
	}{
		{name: "waiting for the transfer", env: kassa.Devnet, status: kassa.RefundPending, own: &kassa.OwnWalletPay{}, wrote: true},
		{name: "transfer seen", env: kassa.Devnet, status: kassa.RefundPending, own: &kassa.OwnWalletPay{Seen: seen}, code: "refund_being_sent"},
		{name: "sent", env: kassa.Devnet, status: kassa.RefundSent, own: &kassa.OwnWalletPay{Seen: seen}, code: "refund_being_sent"},
		{name: "Kassa's already", env: kassa.Devnet, status: kassa.RefundPending},
		{name: "other environment", env: kassa.Mainnet, status: kassa.RefundPending, own: &kassa.OwnWalletPay{}, code: "resource_missing"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &lockedRefund{r: kassa.Refund{ID: "ref", MerchantID: 7, Environment: tc.env, Status: tc.status, OwnWallet: tc.own}}
			_, err := (&refund.Service{Store: s}).LetKassaPay(context.Background(), devnet, "ref")
			wantCode(t, err, tc.code)
			if s.wrote != tc.wrote {
				t.Errorf("store wrote the hand-back: %v, want %v", s.wrote, tc.wrote)
			}
		})
	}
}
