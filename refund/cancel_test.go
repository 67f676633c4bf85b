package refund_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/outbox"
	"github.com/kassapay/kassa/refund"
)

// lockedRefund is a store holding one refund and its payout's status: its
// writes ask the service's decision as the real store does, and write only when
// allowed (canceled, wrote).
type lockedRefund struct {
	refund.Store // the rest, unused here
	r            kassa.Refund
	payout       outbox.PayoutStatus
	now          time.Time // the store's clock
	canceled     bool
	wrote        bool
}

func (l *lockedRefund) CancelRefund(_ context.Context, merchantID int64, id string,
	decide func(r *kassa.Refund, payout outbox.PayoutStatus) error) (*kassa.Refund, error) {
	if merchantID != l.r.MerchantID || id != l.r.ID {
		return nil, kassa.NotFound("refund")
	}
	r := l.r
	if err := decide(&r, l.payout); err != nil {
		return nil, err
	}
	l.canceled, r.Status = true, kassa.RefundCanceled
	return &r, nil
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
			var e *kassa.Error
			switch {
			case tc.code == "" && err != nil:
				t.Fatalf("Cancel: %v", err)
			case tc.code != "" && (!errors.As(err, &e) || e.Code != tc.code):
				t.Fatalf("Cancel: %v, want %s", err, tc.code)
			}
			if s.canceled != (tc.code == "") {
				t.Errorf("store wrote the cancel: %v, want %v", s.canceled, tc.code == "")
			}
			if err == nil && r.Status != kassa.RefundCanceled {
				t.Errorf("returned status %s, want canceled", r.Status)
			}
		})
	}
}
