package commerce

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"time"

	"kassa"
)

// Order returns one of the caller's orders in the caller's environment; orders of
// the other environment are not found, as events are.
func (s *Service) Order(ctx context.Context, p kassa.Principal, id string) (*kassa.Order, error) {
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
func (s *Service) Orders(ctx context.Context, f kassa.OrderFilter) ([]*kassa.Order, bool, error) {
	return s.Store.Orders(ctx, f)
}

// change applies fn to the caller's order under the store's lock, after bringing
// the order in line with its invoice (an expiry the sweeper has not seen yet).
func (s *Service) change(ctx context.Context, p kassa.Principal, id string,
	fn func(o *kassa.Order, inv *kassa.Invoice, now time.Time) (kassa.InvoiceAction, error)) (*kassa.Order, error) {
	if _, err := s.Order(ctx, p, id); err != nil {
		return nil, err
	}
	return s.Store.ChangeOrder(ctx, p.MerchantID, id, func(o *kassa.Order, inv *kassa.Invoice, now time.Time) (kassa.InvoiceAction, error) {
		o.FollowInvoice(inv, "", now)
		return fn(o, inv, now)
	})
}

// Cancel cancels an order before the retailer has it. An unpaid invoice is
// canceled with it; a paid order records a refund of its total less the commerce
// fee. An invoice with money pending or partly paid cannot be cancelled yet.
func (s *Service) Cancel(ctx context.Context, p kassa.Principal, id string, r kassa.CancelRequest) (*kassa.Order, error) {
	if r.RefundAddress != nil {
		if err := kassa.CheckEVMAddress("refundDestinationWalletAddressBsc", *r.RefundAddress); err != nil {
			return nil, err
		}
	}
	return s.change(ctx, p, id, func(o *kassa.Order, inv *kassa.Invoice, now time.Time) (kassa.InvoiceAction, error) {
		if !kassa.CanCancel(o.Status) {
			return kassa.InvoiceKeep, kassa.Errorf(kassa.KindConflict, "order_not_cancelable",
				"An order in %s cannot be cancelled: the retailer already has it or it is over.", o.Status)
		}
		if r.RefundAddress != nil {
			o.RefundAddress = *r.RefundAddress
		}
		action := kassa.InvoiceKeep
		switch {
		case inv.PaymentUnderway():
			return action, errPaymentInProgress()
		case inv.Status == kassa.StatusUnpaid:
			action = kassa.InvoiceCancel
		case o.Paid() && o.RefundAddress == "" && o.WalletAddress == "":
			return action, kassa.Invalidf("refundDestinationWalletAddressBsc", "missing_param",
				"A paid order needs a refund destination: send refundDestinationWalletAddressBsc.")
		}
		msg := "Order cancelled."
		if r.Reason != "" {
			msg = "Order cancelled: " + r.Reason
		}
		if action == kassa.InvoiceCancel {
			o.Payment.Status = kassa.OrderPaymentCanceled
		}
		return action, o.Advance(kassa.Step{To: kassa.OrderCancelled, Message: msg}, now)
	})
}

func errPaymentInProgress() error {
	return kassa.Errorf(kassa.KindConflict, "payment_in_progress",
		"This order's invoice has money pending or partly paid; cancel once it is paid or expired.")
}

// Simulate moves a devnet order to r.TransitionTo through every stage between,
// each in its own transaction with its timeline entry and commerce.order.updated
// event. The payment stage must already have happened through the order's
// invoice (the HTTP layer pays it with a devnet payment first), so invoice and
// order agree.
func (s *Service) Simulate(ctx context.Context, p kassa.Principal, id string, r kassa.SimulateRequest) (*kassa.Order, error) {
	if p.Environment != kassa.Devnet {
		return nil, kassa.Errorf(kassa.KindPermission, "devnet_only", "Order simulation is available on devnet only.")
	}
	var path []kassa.OrderStatus
	o, err := s.change(ctx, p, id, func(o *kassa.Order, inv *kassa.Invoice, now time.Time) (kassa.InvoiceAction, error) {
		if o.Environment != kassa.Devnet {
			return kassa.InvoiceKeep, kassa.Errorf(kassa.KindPermission, "devnet_only", "Only devnet orders can be simulated.")
		}
		var err error
		path, err = kassa.TransitionPath(o, r.TransitionTo)
		if err != nil && o.Status == r.TransitionTo && reachedByItself(o.Status) {
			// Devnet pays and settles by itself: the order is already where it was
			// asked to go (by the payment made for this simulation, or the
			// settlement worker racing the caller), which is no conflict.
			if r.Paid {
				applyWallet(o, r)
			}
			return kassa.InvoiceKeep, nil
		}
		if err != nil {
			return kassa.InvoiceKeep, err
		}
		if r.Paid && o.Status == kassa.OrderPaymentConfirmed {
			applyWallet(o, r)
		}
		return s.simulateStep(o, inv, path[0], r, now)
	})
	for i := 1; err == nil && i < len(path); i++ {
		to := path[i]
		o, err = s.Store.ChangeOrder(ctx, p.MerchantID, id, func(o *kassa.Order, inv *kassa.Invoice, now time.Time) (kassa.InvoiceAction, error) {
			return s.simulateStep(o, inv, to, r, now)
		})
	}
	return o, err
}

// reachedByItself reports whether a devnet order gets to status s without the
// simulate endpoint: paying the invoice confirms it, the settlement worker settles it.
func reachedByItself(s kassa.OrderStatus) bool {
	return s == kassa.OrderPaymentConfirmed || s == kassa.OrderPaymentSettled
}

// simulateStep applies one simulated stage to a locked order.
func (s *Service) simulateStep(o *kassa.Order, inv *kassa.Invoice, to kassa.OrderStatus, r kassa.SimulateRequest,
	now time.Time) (kassa.InvoiceAction, error) {
	action := kassa.InvoiceKeep
	st := kassa.Step{To: to, Message: "Simulated: " + string(to) + "."}
	switch to {
	case kassa.OrderPaymentConfirmed:
		if inv.Status != kassa.StatusPaid {
			return action, kassa.Errorf(kassa.KindConflict, "invalid_transition",
				"The order's invoice is %s; it cannot be paid now.", inv.Status)
		}
	case kassa.OrderPlaced:
		o.RetailerOrderID = "devnet-" + o.ID[:8]
	case kassa.OrderShipped:
		st.Shipments = []kassa.Shipment{devnetShipment(o, r.Tracking, now)}
	case kassa.OrderDeliveryConfirmed:
		if len(o.Shipments) == 0 {
			st.Shipments = []kassa.Shipment{devnetShipment(o, r.Tracking, now)}
		}
	case kassa.OrderCancelled, kassa.OrderFailed:
		// An order that ends before it is paid takes its invoice with it, so no
		// payment can arrive for an order that is over; money part way blocks it,
		// as it blocks a cancel.
		switch {
		case o.Status != kassa.OrderPendingPayment:
		case inv.PaymentUnderway():
			return action, errPaymentInProgress()
		case inv.Status == kassa.StatusUnpaid:
			action, o.Payment.Status = kassa.InvoiceCancel, kassa.OrderPaymentCanceled
		}
	case kassa.OrderRefunded:
		st.TxHash = randomHash()
	}
	if to == kassa.OrderPaymentConfirmed {
		applyWallet(o, r)
	}
	return action, o.Advance(st, now)
}

// applyWallet records the payor wallet a payment simulation names.
func applyWallet(o *kassa.Order, r kassa.SimulateRequest) {
	if r.WalletAddress != nil {
		o.WalletAddress = *r.WalletAddress
	}
	if r.WalletNetwork != nil {
		o.WalletNetwork = *r.WalletNetwork
	}
}

// devnetShipment is the shipment a simulated order ships in, from the request's
// tracking fields or devnet defaults.
func devnetShipment(o *kassa.Order, t *kassa.Tracking, now time.Time) kassa.Shipment {
	var tr kassa.Tracking
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
	return kassa.Shipment{ShipmentID: "shp_" + o.ID[:8], Carrier: tr.Carrier, TrackingNumber: tr.TrackingNumber,
		CarrierTrackingURL: tr.CarrierTrackingURL, DeliveryStatus: "in_transit",
		RetailerTrackingNumber: tr.RetailerTrackingNumber, RetailerTrackingURL: tr.RetailerTrackingURL, ObtainedAt: now}
}

func randomHash() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	return "0x" + hex.EncodeToString(b)
}
