package commerce

import (
	"time"

	"github.com/kassapay/kassa"
)

// Order lifecycle. The main line is pending_payment → payment_confirmed →
// payment_settled → placed → shipped → delivery_confirmed. Side exits: cancelled
// (before placed), failed (before delivery) and refunded (after a cancel or a
// failure of a paid order). Every change goes through Order.Advance, so the rules
// live here once and both store engines share them.

// Substatuses: the detail of a status that tells a shopper what happens next.
const (
	SubAwaitingPayment    = "AWAITING_PAYMENT"
	SubAwaitingSettlement = "AWAITING_SETTLEMENT"
	SubAwaitingPlacement  = "AWAITING_PLACEMENT"
	SubAwaitingTracking   = "AWAITING_TRACKING"
	SubInTransit          = "IN_TRANSIT"
	SubDelivered          = "DELIVERED"
	SubPlacementFailed    = "PLACEMENT_FAILED"
	SubFailedUnpaid       = "FAILED_BEFORE_PAYMENT"
	SubCancelledByRequest = "CANCELLED_BY_MERCHANT"
	SubPaymentExpired     = "PAYMENT_EXPIRED"
	SubPaymentCanceled    = "INVOICE_CANCELED"
	SubRefundPending      = "REFUND_PENDING"
	SubRefundCompleted    = "REFUND_COMPLETED"
)

// Line item statuses.
const (
	ItemPending    = "pending"
	ItemProcessing = "processing"
	ItemShipped    = "shipped"
	ItemDelivered  = "delivered"
	ItemCancelled  = "cancelled"
	ItemRefunded   = "refunded"
)

// nextStatuses is the transition graph. Refunded also needs an order that holds
// money (HoldsMoney).
var nextStatuses = map[OrderStatus][]OrderStatus{
	OrderPendingPayment:   {OrderPaymentConfirmed, OrderCancelled, OrderFailed},
	OrderPaymentConfirmed: {OrderPaymentSettled, OrderCancelled, OrderFailed},
	OrderPaymentSettled:   {OrderPlaced, OrderCancelled, OrderFailed},
	OrderPlaced:           {OrderShipped, OrderFailed},
	OrderShipped:          {OrderDeliveryConfirmed, OrderFailed},
	OrderFailed:           {OrderRefunded},
	OrderCancelled:        {OrderRefunded},
}

// CanMove reports whether an order in status from, holding the shopper's money or
// not, may move to to in one step.
func CanMove(from, to OrderStatus, paid bool) bool {
	if to == OrderRefunded && !paid {
		return false
	}
	for _, s := range nextStatuses[from] {
		if s == to {
			return true
		}
	}
	return false
}

// CanCancel reports whether an order in status s may still be cancelled: until
// the retailer has it.
func CanCancel(s OrderStatus) bool {
	return s == OrderPendingPayment || s == OrderPaymentConfirmed || s == OrderPaymentSettled
}

// Final reports whether nothing can happen to an order in status s any more, paid
// or not.
func (s OrderStatus) Final(paid bool) bool {
	for _, to := range nextStatuses[s] {
		if CanMove(s, to, paid) {
			return false
		}
	}
	return true
}

func errInvalidTransition(from, to OrderStatus) error {
	return kassa.Errorf(kassa.KindConflict, "invalid_transition", "An order in %s cannot move to %s.", from, to)
}

// TransitionPath returns the statuses an order passes through, in order, to reach
// target from where it stands: the shortest path in the transition graph, taking
// the cancel route before the failure route. An unreachable target (the current
// status included) is 409 invalid_transition.
func TransitionPath(o *Order, target OrderStatus) ([]OrderStatus, error) {
	type node struct {
		s    OrderStatus
		paid bool
	}
	start := node{o.Status, o.HoldsMoney()}
	prev := map[node]node{start: start}
	queue := []node{start}
	for len(queue) > 0 {
		n := queue[0]
		queue = queue[1:]
		if n.s == target && n != start {
			var path []OrderStatus
			for ; n != start; n = prev[n] {
				path = append([]OrderStatus{n.s}, path...)
			}
			return path, nil
		}
		for _, to := range nextStatuses[n.s] {
			next := node{to, n.paid || to == OrderPaymentConfirmed}
			if _, seen := prev[next]; seen || !CanMove(n.s, to, n.paid) {
				continue
			}
			prev[next] = n
			queue = append(queue, next)
		}
	}
	return nil, errInvalidTransition(o.Status, target)
}

// Step carries what one transition needs beyond its target.
type Step struct {
	To        OrderStatus
	Message   string     // timeline message; a default per status when empty
	Substatus string     // overrides the status's default substatus
	TxHash    string     // payment tx (payment_confirmed) or refund tx (refunded)
	Shipments []Shipment // replaces the order's shipments (shipped, delivery_confirmed)
}

// defaultMessages are the timeline messages of each status.
var defaultMessages = map[OrderStatus]string{
	OrderPaymentConfirmed:  "Payment confirmed.",
	OrderPaymentSettled:    "Payment settled.",
	OrderPlaced:            "Order placed with the retailer.",
	OrderShipped:           "Order shipped.",
	OrderDeliveryConfirmed: "Delivery confirmed.",
	OrderFailed:            "Order failed.",
	OrderCancelled:         "Order cancelled.",
	OrderRefunded:          "Refund sent.",
}

var defaultSubstatus = map[OrderStatus]string{
	OrderPendingPayment:    SubAwaitingPayment,
	OrderPaymentConfirmed:  SubAwaitingSettlement,
	OrderPaymentSettled:    SubAwaitingPlacement,
	OrderPlaced:            SubAwaitingTracking,
	OrderShipped:           SubInTransit,
	OrderDeliveryConfirmed: SubDelivered,
	OrderFailed:            SubPlacementFailed,
	OrderCancelled:         SubCancelledByRequest,
	OrderRefunded:          SubRefundCompleted,
}

var itemStatus = map[OrderStatus]string{
	OrderPlaced: ItemProcessing, OrderShipped: ItemShipped, OrderDeliveryConfirmed: ItemDelivered,
	OrderCancelled: ItemCancelled, OrderFailed: ItemCancelled, OrderRefunded: ItemRefunded,
}

// Advance moves the order one step, with its timeline entry and the effects of
// the new status: a paid order that is cancelled or fails owes a refund (quoted
// as Total − CommerceFee, to RefundAddress or else the payor's wallet); a
// refunded order records the refund's transaction.
func (o *Order) Advance(st Step, now time.Time) error {
	if !CanMove(o.Status, st.To, o.HoldsMoney()) {
		return errInvalidTransition(o.Status, st.To)
	}
	switch st.To {
	case OrderPaymentConfirmed:
		o.Payment.Status = OrderPaymentPaid
		if st.TxHash != "" {
			o.Payment.TxHash = st.TxHash
		}
		if o.Payment.SettlementStatus == "" {
			o.Payment.SettlementStatus = string(kassa.SettlementPending)
		}
	case OrderPaymentSettled:
		o.Payment.SettlementStatus = string(kassa.SettlementSettled)
	case OrderShipped, OrderDeliveryConfirmed:
		if st.Shipments != nil {
			o.Shipments = st.Shipments
		}
		if st.To == OrderDeliveryConfirmed {
			for i := range o.Shipments {
				o.Shipments[i].DeliveryStatus = "delivered"
			}
		}
	case OrderCancelled, OrderFailed:
		if st.To == OrderCancelled {
			o.Cancellation = CancellationCancelled
		}
		if o.Paid() {
			o.Refund = o.RefundQuote(now)
			o.Refund.Status = RefundPending
			if st.Substatus == "" && st.To == OrderCancelled {
				st.Substatus = SubRefundPending
			}
		} else if st.Substatus == "" && st.To == OrderFailed {
			st.Substatus = SubFailedUnpaid
		}
	case OrderRefunded:
		o.Refund.Status = RefundCompleted
		o.Refund.TxHash = st.TxHash
	}
	o.Status = st.To
	o.Substatus = st.Substatus
	if o.Substatus == "" {
		o.Substatus = defaultSubstatus[st.To]
	}
	if s, ok := itemStatus[st.To]; ok {
		for i := range o.Items {
			o.Items[i].Status = s
		}
	}
	msg := st.Message
	if msg == "" {
		msg = defaultMessages[st.To]
	}
	o.Timeline = append(o.Timeline, TimelineEntry{Status: st.To, Timestamp: now, Message: msg})
	o.UpdatedAt = now
	return nil
}

// RefundFailedFor records that the refund's transfer failed for good (reverted
// after the retries): the refund is FAILED, with the reason on the timeline, for
// a person to send; the order keeps its status.
func (o *Order) RefundFailedFor(reason string, now time.Time) {
	o.Refund.Status = RefundFailed
	o.Timeline = append(o.Timeline, TimelineEntry{Status: o.Status, Timestamp: now,
		Message: "The refund could not be sent: " + reason})
	o.UpdatedAt = now
}

// RefundQuote is what cancelling the order now would refund: the total less the
// commerce fee, to the refund address given at checkout or cancel, else the
// wallet that paid. Once a refund is recorded, the quote is that refund.
func (o *Order) RefundQuote(now time.Time) Refund {
	if o.Refund.Status != RefundNone {
		return o.Refund
	}
	dest := o.RefundAddress
	if dest == "" {
		dest = o.WalletAddress
	}
	return Refund{Status: o.Refund.Status, Amount: RefundQuote(o.Total, o.CommerceFee), Fee: o.CommerceFee,
		Destination: dest, Network: RefundNetwork(o.Environment), CreatedAt: &now}
}

// RefundNetwork is the network refunds are sent on: BSC, as the refund
// destination field (refundDestinationWalletAddressBsc) says.
func RefundNetwork(env kassa.Environment) string {
	if env == kassa.Mainnet {
		return "bsc"
	}
	return "bsc-testnet"
}

// RefundTokenSymbol is the token refunds are quoted in until one is paid on
// chain, in the token the order was paid with (Refund.TokenSymbol).
const RefundTokenSymbol = "USDT"

// Symbol is the token the refund is paid in.
func (r Refund) Symbol() string {
	if r.TokenSymbol != "" {
		return r.TokenSymbol
	}
	return RefundTokenSymbol
}
