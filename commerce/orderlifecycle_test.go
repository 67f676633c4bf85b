package commerce

import (
	"slices"
	"testing"
	"time"

	"github.com/kassapay/kassa"
)

var t0 = time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)

// testOrder returns an order in status s, paid or not, with a $100 total and a
// $2.50 fee.
func testOrder(t *testing.T, s OrderStatus, paid bool) *Order {
	t.Helper()
	o := &Order{ID: "0193a1b2-0000-7000-8000-000000000001", Environment: kassa.Devnet, Status: s,
		Total: 100_000, CommerceFee: 2_500, WalletAddress: "0x52908400098527886E0F7030069857D2E4169EE7",
		Payment: OrderPayment{Status: OrderPaymentUnpaid}, Refund: Refund{Status: RefundNone},
		Cancellation: CancellationNone, Items: []LineItem{{ProductID: "p1", Quantity: 1, Status: ItemPending}}}
	if paid {
		o.Payment.Status = OrderPaymentPaid
	}
	return o
}

func TestCanMoveEveryPair(t *testing.T) {
	allowed := map[OrderStatus][]OrderStatus{
		OrderPendingPayment:   {OrderPaymentConfirmed, OrderCancelled, OrderFailed},
		OrderPaymentConfirmed: {OrderPaymentSettled, OrderCancelled, OrderFailed},
		OrderPaymentSettled:   {OrderPlaced, OrderCancelled, OrderFailed},
		OrderPlaced:           {OrderShipped, OrderFailed},
		OrderShipped:          {OrderDeliveryConfirmed, OrderFailed},
		OrderFailed:           {OrderRefunded},
		OrderCancelled:        {OrderRefunded},
	}
	for _, from := range OrderStatuses {
		for _, to := range OrderStatuses {
			for _, paid := range []bool{false, true} {
				want := slices.Contains(allowed[from], to) && (to != OrderRefunded || paid)
				if got := CanMove(from, to, paid); got != want {
					t.Errorf("CanMove(%s, %s, paid=%v) = %v, want %v", from, to, paid, got, want)
				}
				o := testOrder(t, from, paid)
				err := o.Advance(Step{To: to}, t0)
				if want != (err == nil) {
					t.Errorf("Advance %s → %s (paid=%v): err %v, want allowed=%v", from, to, paid, err, want)
				}
				if err != nil && kassa.ErrorCode(err) != "invalid_transition" {
					t.Errorf("Advance %s → %s: code %q, want invalid_transition", from, to, kassa.ErrorCode(err))
				}
			}
		}
	}
}

func TestCanCancelBeforePlaced(t *testing.T) {
	for _, s := range OrderStatuses {
		want := s == OrderPendingPayment || s == OrderPaymentConfirmed || s == OrderPaymentSettled
		if CanCancel(s) != want {
			t.Errorf("CanCancel(%s) = %v, want %v", s, !want, want)
		}
	}
}

func TestTransitionPath(t *testing.T) {
	tests := []struct {
		from   OrderStatus
		paid   bool
		target OrderStatus
		want   []OrderStatus // nil: invalid_transition
	}{
		{OrderPendingPayment, false, OrderPaymentConfirmed, []OrderStatus{OrderPaymentConfirmed}},
		{OrderPendingPayment, false, OrderDeliveryConfirmed, []OrderStatus{OrderPaymentConfirmed, OrderPaymentSettled,
			OrderPlaced, OrderShipped, OrderDeliveryConfirmed}},
		{OrderPendingPayment, false, OrderShipped, []OrderStatus{OrderPaymentConfirmed, OrderPaymentSettled, OrderPlaced, OrderShipped}},
		{OrderPendingPayment, false, OrderCancelled, []OrderStatus{OrderCancelled}},
		{OrderPendingPayment, false, OrderFailed, []OrderStatus{OrderFailed}},
		{OrderPendingPayment, false, OrderRefunded, []OrderStatus{OrderPaymentConfirmed, OrderCancelled, OrderRefunded}},
		{OrderPaymentSettled, true, OrderRefunded, []OrderStatus{OrderCancelled, OrderRefunded}},
		{OrderPlaced, true, OrderRefunded, []OrderStatus{OrderFailed, OrderRefunded}},
		{OrderShipped, true, OrderDeliveryConfirmed, []OrderStatus{OrderDeliveryConfirmed}},
		{OrderPlaced, true, OrderCancelled, nil},
		{OrderPlaced, true, OrderPaymentConfirmed, nil},
		{OrderDeliveryConfirmed, true, OrderRefunded, nil},
		{OrderDeliveryConfirmed, true, OrderFailed, nil},
		{OrderRefunded, true, OrderRefunded, nil},
		{OrderCancelled, false, OrderRefunded, nil},
		{OrderFailed, false, OrderRefunded, nil},
		{OrderShipped, true, OrderShipped, nil},
	}
	for _, tt := range tests {
		o := testOrder(t, tt.from, tt.paid)
		got, err := TransitionPath(o, tt.target)
		if tt.want == nil {
			if kassa.ErrorCode(err) != "invalid_transition" || kassa.ErrorKindOf(err) != kassa.KindConflict {
				t.Errorf("%s(paid=%v) → %s: path %v, err %v; want 409 invalid_transition", tt.from, tt.paid, tt.target, got, err)
			}
			continue
		}
		if err != nil || !slices.Equal(got, tt.want) {
			t.Errorf("%s(paid=%v) → %s: %v, %v; want %v", tt.from, tt.paid, tt.target, got, err, tt.want)
			continue
		}
		for _, to := range got { // the path is walkable step by step
			if err := o.Advance(Step{To: to}, t0); err != nil {
				t.Errorf("%s → %s: walking the path: %v", tt.from, tt.target, err)
			}
		}
		if len(o.Timeline) != len(got) || o.Status != tt.target {
			t.Errorf("%s → %s: timeline %d entries, status %s", tt.from, tt.target, len(o.Timeline), o.Status)
		}
	}
}

func TestAdvanceEffects(t *testing.T) {
	t.Run("paid order cancelled owes total less fee", func(t *testing.T) {
		o := testOrder(t, OrderPaymentSettled, true)
		if err := o.Advance(Step{To: OrderCancelled}, t0); err != nil {
			t.Fatal(err)
		}
		if o.Refund.Status != RefundPending || o.Refund.Amount != 97_500 || o.Refund.Fee != 2_500 ||
			o.Refund.Destination != o.WalletAddress || o.Cancellation != CancellationCancelled || o.Substatus != SubRefundPending {
			t.Errorf("refund %+v, cancellation %s, substatus %s", o.Refund, o.Cancellation, o.Substatus)
		}
		if o.Items[0].Status != ItemCancelled {
			t.Errorf("item status %s", o.Items[0].Status)
		}
		if err := o.Advance(Step{To: OrderRefunded, TxHash: "0xabc"}, t0); err != nil {
			t.Fatal(err)
		}
		if o.Refund.Status != RefundCompleted || o.Refund.TxHash != "0xabc" || o.Items[0].Status != ItemRefunded {
			t.Errorf("after refund: %+v", o.Refund)
		}
	})
	t.Run("unpaid order cancelled owes nothing", func(t *testing.T) {
		o := testOrder(t, OrderPendingPayment, false)
		if err := o.Advance(Step{To: OrderCancelled}, t0); err != nil {
			t.Fatal(err)
		}
		if o.Refund.Status != RefundNone || o.Substatus != SubCancelledByRequest {
			t.Errorf("refund %+v substatus %s", o.Refund, o.Substatus)
		}
	})
	t.Run("unpaid order failed says so", func(t *testing.T) {
		o := testOrder(t, OrderPendingPayment, false)
		if err := o.Advance(Step{To: OrderFailed}, t0); err != nil {
			t.Fatal(err)
		}
		if o.Refund.Status != RefundNone || o.Substatus != SubFailedUnpaid || o.CanCancelNow() {
			t.Errorf("refund %+v substatus %s", o.Refund, o.Substatus)
		}
	})
	t.Run("part paid order cannot be cancelled yet", func(t *testing.T) {
		o := testOrder(t, OrderPendingPayment, false)
		o.Payment.Status = OrderPaymentUnderpaid
		if o.CanCancelNow() || !testOrder(t, OrderPendingPayment, false).CanCancelNow() {
			t.Error("CanCancelNow of an underpaid order")
		}
	})
	t.Run("refund address wins over wallet", func(t *testing.T) {
		o := testOrder(t, OrderPlaced, true)
		o.RefundAddress = "0x0000000000000000000000000000000000000001"
		if err := o.Advance(Step{To: OrderFailed}, t0); err != nil {
			t.Fatal(err)
		}
		if o.Refund.Destination != o.RefundAddress || o.Substatus != SubPlacementFailed {
			t.Errorf("refund %+v substatus %s", o.Refund, o.Substatus)
		}
	})
	t.Run("placed awaits tracking, items processing", func(t *testing.T) {
		o := testOrder(t, OrderPaymentSettled, true)
		if err := o.Advance(Step{To: OrderPlaced}, t0); err != nil {
			t.Fatal(err)
		}
		if o.Substatus != SubAwaitingTracking || o.Items[0].Status != ItemProcessing {
			t.Errorf("substatus %s item %s", o.Substatus, o.Items[0].Status)
		}
	})
	t.Run("delivery marks shipments delivered", func(t *testing.T) {
		o := testOrder(t, OrderPlaced, true)
		_ = o.Advance(Step{To: OrderShipped, Shipments: []Shipment{{ShipmentID: "s1", DeliveryStatus: "in_transit"}}}, t0)
		if err := o.Advance(Step{To: OrderDeliveryConfirmed}, t0); err != nil {
			t.Fatal(err)
		}
		if o.Shipments[0].DeliveryStatus != "delivered" || o.Items[0].Status != ItemDelivered {
			t.Errorf("shipments %+v", o.Shipments)
		}
		if !o.Status.Final(true) {
			t.Error("delivery_confirmed should be final")
		}
	})
}

func TestFollowInvoice(t *testing.T) {
	wallet := "0x52908400098527886E0F7030069857D2E4169EE7"
	network := "bsc-testnet"
	tests := []struct {
		name       string
		status     OrderStatus
		inv        kassa.InvoiceStatus
		paid       kassa.Millis // the invoice's amount_paid
		want       OrderStatus
		wantPay    string
		wantSub    string
		timeline   int
		wantRefund kassa.Millis // a refund owed (pending), or 0 for none
	}{
		{"paid confirms", OrderPendingPayment, kassa.StatusPaid, 100_000, OrderPaymentConfirmed, OrderPaymentPaid, SubAwaitingSettlement, 1, 0},
		{"underpaid shows", OrderPendingPayment, kassa.StatusUnderpaid, 40_000, OrderPendingPayment, OrderPaymentUnderpaid, "", 0, 0},
		{"expired cancels", OrderPendingPayment, kassa.StatusExpired, 0, OrderCancelled, OrderPaymentExpired, SubPaymentExpired, 1, 0},
		{"expired part paid owes the part", OrderPendingPayment, kassa.StatusExpired, 40_000, OrderCancelled, OrderPaymentExpired, SubPaymentExpired, 1, 40_000},
		{"canceled cancels", OrderPendingPayment, kassa.StatusCanceled, 0, OrderCancelled, OrderPaymentCanceled, SubPaymentCanceled, 1, 0},
		{"unpaid stays", OrderPendingPayment, kassa.StatusUnpaid, 0, OrderPendingPayment, OrderPaymentUnpaid, "", 0, 0},
		{"later orders ignore", OrderPlaced, kassa.StatusExpired, 100_000, OrderPlaced, OrderPaymentPaid, "", 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := testOrder(t, tt.status, tt.status != OrderPendingPayment)
			o.WalletAddress = ""
			inv := &kassa.Invoice{Status: tt.inv, AmountPaid: tt.paid, PayerWalletAddress: &wallet, PayerWalletNetwork: &network}
			o.FollowInvoice(inv, "0xfeed", t0)
			owed := kassa.Millis(0)
			if o.Refund.Status == RefundPending {
				owed = o.Refund.Amount
			}
			if owed != tt.wantRefund || (owed > 0 && (o.Refund.Fee != 0 || o.Refund.Destination != wallet)) {
				t.Errorf("refund %+v, want %d pending", o.Refund, tt.wantRefund)
			}
			if _, err := TransitionPath(o, OrderRefunded); o.Status == OrderCancelled && (err == nil) != (tt.wantRefund > 0) {
				t.Errorf("refunded of a cancelled order owing %d: %v", tt.wantRefund, err)
			}
			if o.Status != tt.want || o.Payment.Status != tt.wantPay || len(o.Timeline) != tt.timeline ||
				(tt.wantSub != "" && o.Substatus != tt.wantSub) {
				t.Errorf("got %s/%s sub %s timeline %d", o.Status, o.Payment.Status, o.Substatus, len(o.Timeline))
			}
			if tt.status == OrderPendingPayment && o.WalletAddress != wallet {
				t.Errorf("wallet %q", o.WalletAddress)
			}
			if tt.want == OrderPaymentConfirmed && o.Payment.TxHash != "0xfeed" {
				t.Errorf("tx hash %q", o.Payment.TxHash)
			}
		})
	}
}

func TestFollowInvoicePending(t *testing.T) {
	o := testOrder(t, OrderPendingPayment, false)
	o.FollowInvoice(&kassa.Invoice{Status: kassa.StatusUnpaid, AmountPending: 5_000}, "0xfeed", t0)
	if o.Payment.Status != OrderPaymentPending || o.CanCancelNow() || o.Status != OrderPendingPayment {
		t.Fatalf("pending: %s canCancel %v", o.Payment.Status, o.CanCancelNow())
	}
	o.FollowInvoice(&kassa.Invoice{Status: kassa.StatusUnpaid}, "", t0) // the payment was dropped
	if o.Payment.Status != OrderPaymentUnpaid || !o.CanCancelNow() {
		t.Fatalf("after: %s", o.Payment.Status)
	}
}

func TestFollowSettlement(t *testing.T) {
	o := testOrder(t, OrderPaymentConfirmed, true)
	o.FollowSettlement(kassa.SettlementProcessing, "", "bsc-testnet", false, t0)
	if o.Status != OrderPaymentConfirmed || o.Payment.SettlementStatus != "processing" {
		t.Fatalf("after processing: %s %s", o.Status, o.Payment.SettlementStatus)
	}
	o.FollowSettlement(kassa.SettlementSettled, "0xs", "bsc-testnet", true, t0)
	if o.Status != OrderPaymentSettled || o.Payment.SettlementTxHash != "0xs" || o.Substatus != SubAwaitingPlacement {
		t.Fatalf("after settled: %s %+v", o.Status, o.Payment)
	}
}

func TestCheckSimulate(t *testing.T) {
	bsc, eth, other := "bsc", "ethereum", "solana"
	good, bad := "0x52908400098527886E0F7030069857D2E4169EE7", "not-an-address"
	tests := []struct {
		name string
		r    SimulateRequest
		code string
	}{
		{"ok", SimulateRequest{TransitionTo: OrderShipped}, ""},
		{"missing", SimulateRequest{}, "missing_param"},
		{"pending is no target", SimulateRequest{TransitionTo: OrderPendingPayment}, "invalid_transition_target"},
		{"unknown", SimulateRequest{TransitionTo: "teleported"}, "invalid_transition_target"},
		{"bsc wallet ok", SimulateRequest{TransitionTo: OrderPaymentConfirmed, WalletNetwork: &bsc, WalletAddress: &good}, ""},
		{"bsc wallet bad", SimulateRequest{TransitionTo: OrderPaymentConfirmed, WalletNetwork: &bsc, WalletAddress: &bad}, "invalid_address"},
		{"eth wallet bad", SimulateRequest{TransitionTo: OrderPaymentConfirmed, WalletNetwork: &eth, WalletAddress: &bad}, "invalid_address"},
		{"other network free form", SimulateRequest{TransitionTo: OrderPaymentConfirmed, WalletNetwork: &other, WalletAddress: &bad}, ""},
		{"tracking url", SimulateRequest{TransitionTo: OrderShipped, Tracking: &Tracking{CarrierTrackingURL: "ftp://x"}}, "invalid_url"},
	}
	for _, tt := range tests {
		err := CheckSimulate(tt.r)
		if kassa.ErrorCode(err) != tt.code {
			t.Errorf("%s: code %q, want %q (%v)", tt.name, kassa.ErrorCode(err), tt.code, err)
		}
	}
}
