package commerce

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"time"

	"github.com/kassapay/kassa"
)

// Order returns one of the caller's orders in the caller's environment; orders of
// the other environment are not found, as events are.
func (s *Shop) Order(ctx context.Context, p kassa.Principal, id string) (*Order, error) {
	o, err := s.Store.Order(ctx, p.MerchantID, id)
	if err != nil {
		return nil, err
	}
	if o.Environment != p.Environment {
		return nil, kassa.NotFound("order")
	}
	return o, nil
}

// Orders lists the caller's orders.
func (s *Shop) Orders(ctx context.Context, f OrderFilter) ([]*Order, bool, error) {
	return s.Store.Orders(ctx, f)
}

// change applies fn to the caller's order under the store's lock, after bringing
// the order in line with its invoice (an expiry the sweeper has not seen yet).
func (s *Shop) change(ctx context.Context, p kassa.Principal, id string,
	fn OrderChange) (*Order, error) {
	if _, err := s.Order(ctx, p, id); err != nil {
		return nil, err
	}
	return s.Store.ChangeOrder(ctx, p.MerchantID, id, func(o *Order, inv *kassa.Invoice, payments int, now time.Time) (InvoiceAction, error) {
		o.FollowInvoice(inv, "", now)
		return fn(o, inv, payments, now)
	})
}

// Cancel cancels an order before the retailer has it. An unpaid invoice is
// canceled with it; a paid order records a refund of its total less the commerce
// fee. An invoice with money pending or partly paid cannot be cancelled yet.
func (s *Shop) Cancel(ctx context.Context, p kassa.Principal, id string, r CancelRequest) (*Order, error) {
	if r.RefundAddress != nil {
		if err := kassa.CheckEVMAddress("refundDestinationWalletAddressBsc", *r.RefundAddress); err != nil {
			return nil, err
		}
	}
	return s.change(ctx, p, id, func(o *Order, inv *kassa.Invoice, payments int, now time.Time) (InvoiceAction, error) {
		if !CanCancel(o.Status) {
			return InvoiceKeep, kassa.Errorf(kassa.KindConflict, "order_not_cancelable",
				"An order in %s cannot be cancelled: the retailer already has it or it is over.", o.Status)
		}
		if r.RefundAddress != nil {
			o.RefundAddress = *r.RefundAddress
		}
		action := InvoiceKeep
		switch {
		case inv.PaymentUnderway():
			return action, errPaymentInProgress()
		case inv.Status == kassa.StatusUnpaid:
			if err := kassa.CheckCancel(inv.Status, payments); err != nil {
				return action, err
			}
			action = InvoiceCancel
		case o.Paid() && o.RefundAddress == "" && o.WalletAddress == "":
			return action, kassa.Invalidf("refundDestinationWalletAddressBsc", "missing_param",
				"A paid order needs a refund destination: send refundDestinationWalletAddressBsc.")
		}
		msg := "Order cancelled."
		if r.Reason != "" {
			msg = "Order cancelled: " + r.Reason
		}
		if action == InvoiceCancel {
			o.Payment.Status = OrderPaymentCanceled
		}
		return action, o.Advance(Step{To: OrderCancelled, Message: msg}, now)
	})
}

func errPaymentInProgress() error {
	return kassa.Errorf(kassa.KindConflict, "payment_in_progress",
		"This order's invoice has money pending or partly paid; cancel once it is paid or expired.")
}

// Simulate moves a devnet order to r.TransitionTo through every stage between,
// each in its own transaction with its timeline entry and commerce.order.updated
// event. A path through payment_confirmed first pays the order's invoice with a
// devnet payment (Payer) through the ingestion path, which confirms the order as a
// real payment would, so invoice and order agree.
func (s *Shop) Simulate(ctx context.Context, p kassa.Principal, id string, r SimulateRequest) (*Order, error) {
	if p.Environment != kassa.Devnet {
		return nil, kassa.Errorf(kassa.KindPermission, "devnet_only", "Order simulation is available on devnet only.")
	}
	o, err := s.Order(ctx, p, id)
	if err != nil {
		return nil, err
	}
	if path, err := TransitionPath(o, r.TransitionTo); err == nil && path[0] == OrderPaymentConfirmed {
		if s.Payer == nil {
			return nil, kassa.Errorf(kassa.KindPermission, "devnet_only", "Simulated payments are not configured.")
		}
		if r.Paid, err = s.Payer.PayInvoice(ctx, o.MerchantID, o.InvoiceID, r.WalletAddress); err != nil {
			return nil, err
		}
	}
	var path []OrderStatus
	o, err = s.change(ctx, p, id, func(o *Order, inv *kassa.Invoice, payments int, now time.Time) (InvoiceAction, error) {
		if o.Environment != kassa.Devnet {
			return InvoiceKeep, kassa.Errorf(kassa.KindPermission, "devnet_only", "Only devnet orders can be simulated.")
		}
		var err error
		path, err = TransitionPath(o, r.TransitionTo)
		if err != nil && o.Status == r.TransitionTo && reachedByItself(o.Status) {
			// Devnet pays and settles by itself: the order is already where it was
			// asked to go (by the payment made for this simulation, or the
			// settlement worker racing the caller), which is no conflict.
			if r.Paid {
				applyWallet(o, r)
			}
			return InvoiceKeep, nil
		}
		if err != nil {
			return InvoiceKeep, err
		}
		if r.Paid && o.Status == OrderPaymentConfirmed {
			applyWallet(o, r)
		}
		return s.simulateStep(o, inv, payments, path[0], r, now)
	})
	for i := 1; err == nil && i < len(path); i++ {
		to := path[i]
		o, err = s.Store.ChangeOrder(ctx, p.MerchantID, id, func(o *Order, inv *kassa.Invoice, payments int, now time.Time) (InvoiceAction, error) {
			return s.simulateStep(o, inv, payments, to, r, now)
		})
	}
	return o, err
}

// reachedByItself reports whether a devnet order gets to status s without the
// simulate endpoint: paying the invoice confirms it, the settlement worker settles it.
func reachedByItself(s OrderStatus) bool {
	return s == OrderPaymentConfirmed || s == OrderPaymentSettled
}

// simulateStep applies one simulated stage to a locked order whose invoice has
// payments recorded against it.
func (s *Shop) simulateStep(o *Order, inv *kassa.Invoice, payments int, to OrderStatus, r SimulateRequest,
	now time.Time) (InvoiceAction, error) {
	action := InvoiceKeep
	st := Step{To: to, Message: "Simulated: " + string(to) + "."}
	switch to {
	case OrderPaymentConfirmed:
		if inv.Status != kassa.StatusPaid {
			return action, kassa.Errorf(kassa.KindConflict, "invalid_transition",
				"The order's invoice is %s; it cannot be paid now.", inv.Status)
		}
	case OrderPlaced:
		o.RetailerOrderID = "devnet-" + o.ID[:8]
	case OrderShipped:
		st.Shipments = []Shipment{devnetShipment(o, r.Tracking, now)}
	case OrderDeliveryConfirmed:
		if len(o.Shipments) == 0 {
			st.Shipments = []Shipment{devnetShipment(o, r.Tracking, now)}
		}
	case OrderCancelled, OrderFailed:
		// An order that ends before it is paid takes its invoice with it, so no
		// payment can arrive for an order that is over; money part way blocks it,
		// as it blocks a cancel.
		switch {
		case o.Status != OrderPendingPayment:
		case inv.PaymentUnderway():
			return action, errPaymentInProgress()
		case inv.Status == kassa.StatusUnpaid:
			if err := kassa.CheckCancel(inv.Status, payments); err != nil {
				return action, err
			}
			action, o.Payment.Status = InvoiceCancel, OrderPaymentCanceled
		}
	case OrderRefunded:
		st.TxHash = randomHash()
	}
	if to == OrderPaymentConfirmed {
		applyWallet(o, r)
	}
	return action, o.Advance(st, now)
}

// applyWallet records the payor wallet a payment simulation names.
func applyWallet(o *Order, r SimulateRequest) {
	if r.WalletAddress != nil {
		o.WalletAddress = *r.WalletAddress
	}
	if r.WalletNetwork != nil {
		o.WalletNetwork = *r.WalletNetwork
	}
}

// devnetShipment is the shipment a simulated order ships in, from the request's
// tracking fields or devnet defaults.
func devnetShipment(o *Order, t *Tracking, now time.Time) Shipment {
	var tr Tracking
	if t != nil {
		tr = *t
	}
	if tr.Carrier == "" {
		tr.Carrier = "UPS"
	}
	if tr.TrackingNumber == "" {
		tr.TrackingNumber = "1ZDEVNET" + o.ID[:8]
	}
	if tr.CarrierTrackingURL == "" && tr.Carrier == "UPS" {
		tr.CarrierTrackingURL = "https://www.ups.com/track?tracknum=" + tr.TrackingNumber
	}
	if tr.RetailerTrackingNumber == "" {
		tr.RetailerTrackingNumber = o.RetailerOrderID
	}
	return Shipment{ShipmentID: "shp_" + o.ID[:8], Carrier: tr.Carrier, TrackingNumber: tr.TrackingNumber,
		CarrierTrackingURL: tr.CarrierTrackingURL, DeliveryStatus: "in_transit",
		RetailerTrackingNumber: tr.RetailerTrackingNumber, RetailerTrackingURL: tr.RetailerTrackingURL, ObtainedAt: now}
}

func randomHash() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	return "0x" + hex.EncodeToString(b)
}
