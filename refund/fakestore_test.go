package refund_test

import (
	"context"
	"testing"
	"time"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/outbox"
	"github.com/kassapay/kassa/refund"
)

// lockedRefund is a store holding one refund and its payout's status: its
// writes ask the service's decision as the real store does, and write only when
// allowed (wrote).
type lockedRefund struct {
	refund.Store // the rest, unused here
	r            kassa.Refund
	payout       outbox.PayoutStatus
	now          time.Time // the store's clock
	wrote        bool
}

// locked is one of the store's writes: the held refund, when merchantID and id
// name it, goes to decide; once decide allows it, write changes the refund
// returned (and notes in l what it wrote).
func (l *lockedRefund) locked(merchantID int64, id string, decide func(r *kassa.Refund) error,
	write func(r *kassa.Refund)) (*kassa.Refund, error) {
	if merchantID != l.r.MerchantID || id != l.r.ID {
		return nil, kassa.NotFound("refund")
	}
	r := l.r
	if err := decide(&r); err != nil {
		return nil, err
	}
	write(&r)
	return &r, nil
}

func (l *lockedRefund) CancelRefund(_ context.Context, merchantID int64, id string,
	decide func(r *kassa.Refund, payout outbox.PayoutStatus) error) (*kassa.Refund, error) {
	return l.locked(merchantID, id, func(r *kassa.Refund) error { return decide(r, l.payout) }, func(r *kassa.Refund) {
		l.wrote, r.Status = true, kassa.RefundCanceled
	})
}

// ClaimRefund: a claim names no merchant.
func (l *lockedRefund) ClaimRefund(_ context.Context, id, address string, decide func(r *kassa.Refund, now time.Time) error) (*kassa.Refund, error) {
	return l.locked(l.r.MerchantID, id, func(r *kassa.Refund) error { return decide(r, l.now) }, func(r *kassa.Refund) {
		l.wrote, r.Status, r.Address = true, kassa.RefundPending, address
	})
}

func (l *lockedRefund) PayRefundFromOwnWallet(_ context.Context, merchantID int64, id string,
	decide func(r *kassa.Refund, payout outbox.PayoutStatus) error) (*kassa.Refund, error) {
	return l.locked(merchantID, id, func(r *kassa.Refund) error { return decide(r, l.payout) }, func(r *kassa.Refund) {
		if r.OwnWallet == nil {
			l.wrote, r.OwnWallet = true, &kassa.OwnWalletPay{}
		}
	})
}

func (l *lockedRefund) LetKassaPayRefund(_ context.Context, merchantID int64, id string, decide func(r *kassa.Refund) error) (*kassa.Refund, error) {
	return l.locked(merchantID, id, decide, func(r *kassa.Refund) {
		if r.OwnWallet != nil {
			l.wrote, r.OwnWallet = true, nil
		}
	})
}

// wantCode fails t unless err is the error of code ("": none).
func wantCode(t *testing.T, err error, code string) {
	t.Helper()
	if got := kassa.ErrorCode(err); got != code {
		t.Fatalf("got %v (code %q), want code %q", err, got, code)
	}
}
