package payment_test

import (
	"errors"
	"testing"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/payment"
)

func TestDecideResolve(t *testing.T) {
	devnet := kassa.Principal{MerchantID: 7, Environment: kassa.Devnet}
	aside := &kassa.Payment{Status: kassa.PaymentManualRetry, AmountUSD: 1000}
	dismiss := kassa.ResolveRequest{How: kassa.ResolutionDismissed}
	for _, tc := range []struct {
		name      string
		env       kassa.Environment
		pay       *kassa.Payment
		refunding int
		code      string
	}{
		{name: "set aside", env: kassa.Devnet, pay: aside},
		{name: "other environment before the payment", env: kassa.Mainnet, code: "environment_mismatch"},
		{name: "no such payment", env: kassa.Devnet, code: "resource_missing"},
		{name: "not set aside", env: kassa.Devnet, pay: &kassa.Payment{Status: kassa.PaymentConfirmed}, code: "payment_not_set_aside"},
		{name: "being refunded", env: kassa.Devnet, pay: aside, refunding: 1, code: "payment_being_refunded"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := payment.DecideResolve(devnet, dismiss)(&kassa.Invoice{Environment: tc.env}, tc.pay, tc.refunding)
			var e *kassa.Error
			switch {
			case tc.code == "" && err != nil:
				t.Fatalf("decided %v, want nil", err)
			case tc.code != "" && (!errors.As(err, &e) || e.Code != tc.code):
				t.Fatalf("decided %v, want %s", err, tc.code)
			}
		})
	}
}
