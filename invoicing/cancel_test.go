package invoicing_test

import (
	"context"
	"testing"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/invoicing"
)

// lockedInvoice is a store holding one invoice and its payment count: its cancel
// asks the service's decision as the real store does, and writes only when allowed.
type lockedInvoice struct {
	invoicing.Store // the rest, unused here
	inv             kassa.Invoice
	payments        int
	canceled        bool
}

func (l *lockedInvoice) CancelInvoice(_ context.Context, merchantID int64, id string, decide invoicing.Decide) (*kassa.Invoice, error) {
	if merchantID != l.inv.MerchantID || id != l.inv.ID {
		return nil, kassa.NotFound("invoice")
	}
	inv := l.inv
	if err := decide(&inv, l.payments); err != nil {
		return nil, err
	}
	l.canceled, inv.Status = true, kassa.StatusCanceled
	return &inv, nil
}

func TestCancelInvoiceDecides(t *testing.T) {
	devnet := kassa.Principal{MerchantID: 7, Environment: kassa.Devnet}
	for _, tc := range []struct {
		name     string
		p        kassa.Principal
		env      kassa.Environment
		status   kassa.InvoiceStatus
		payments int
		code     string
	}{
		{name: "unpaid without payments", p: devnet, env: kassa.Devnet, status: kassa.StatusUnpaid},
		{name: "other environment", p: devnet, env: kassa.Mainnet, status: kassa.StatusUnpaid, code: "environment_mismatch"},
		{name: "other environment before the status", p: devnet, env: kassa.Mainnet, status: kassa.StatusPaid, code: "environment_mismatch"},
		{name: "expired", p: devnet, env: kassa.Devnet, status: kassa.StatusExpired, code: "invoice_not_cancelable"},
		{name: "a payment set aside", p: devnet, env: kassa.Devnet, status: kassa.StatusUnpaid, payments: 1, code: "invoice_has_payments"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &lockedInvoice{inv: kassa.Invoice{ID: "inv", MerchantID: 7, Environment: tc.env, Status: tc.status}, payments: tc.payments}
			inv, err := invoicing.Over(s).CancelInvoice(context.Background(), tc.p, "inv")
			if got := code(t, err); got != tc.code {
				t.Fatalf("code %q, want %q", got, tc.code)
			}
			if s.canceled != (tc.code == "") {
				t.Errorf("store wrote the cancel: %v, want %v", s.canceled, tc.code == "")
			}
			if err == nil && inv.Status != kassa.StatusCanceled {
				t.Errorf("returned status %s, want canceled", inv.Status)
			}
		})
	}
}
