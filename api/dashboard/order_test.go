package dashboard

import (
	"slices"
	"testing"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/commerce"
)

// TestOrderViewSimulate: devnet orders offer the simulate targets reachable from
// their status, mainnet orders none.
func TestOrderViewSimulate(t *testing.T) {
	for _, tc := range []struct {
		env    kassa.Environment
		status commerce.OrderStatus
		paid   bool
		want   []commerce.OrderStatus
	}{
		{kassa.Devnet, commerce.OrderPendingPayment, false, []commerce.OrderStatus{commerce.OrderPaymentConfirmed,
			commerce.OrderPaymentSettled, commerce.OrderPlaced, commerce.OrderShipped, commerce.OrderDeliveryConfirmed,
			commerce.OrderFailed, commerce.OrderCancelled, commerce.OrderRefunded}},
		{kassa.Devnet, commerce.OrderShipped, true, []commerce.OrderStatus{commerce.OrderDeliveryConfirmed,
			commerce.OrderFailed, commerce.OrderRefunded}},
		{kassa.Devnet, commerce.OrderDeliveryConfirmed, true, nil},
		{kassa.Mainnet, commerce.OrderPendingPayment, false, nil},
		{kassa.Mainnet, commerce.OrderShipped, true, nil},
	} {
		o := &commerce.Order{ID: "00000000-0000-4000-8000-000000000001", Environment: tc.env, Status: tc.status,
			Payment: commerce.OrderPayment{Status: commerce.OrderPaymentUnpaid}, Refund: commerce.Refund{Status: commerce.RefundNone}}
		if tc.paid {
			o.Payment.Status = commerce.OrderPaymentPaid
		}
		if got := newOrderView(o).Simulate; !slices.Equal(got, tc.want) {
			t.Errorf("%s %s: simulate %v, want %v", tc.env, tc.status, got, tc.want)
		}
	}
}
