package commerce

import (
	"context"
	"log/slog"
	"time"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/worker"
)

// placementLease is how long a worker holds an order it is placing; a worker that
// dies leaves the order to be placed again after it (the retailer dedupes on the
// order id).
const placementLease = 5 * time.Minute

// placementDeadline is how long placement is retried while the retailer is
// unavailable before the order fails and its refund is recorded.
const placementDeadline = 24 * time.Hour

// PlaceOrders places settled mainnet orders with their retailers: placed on
// success; failed (which records the refund) when the retailer refuses the order
// or stays unavailable past the deadline. It returns how many orders it handled.
func (s *Shop) PlaceOrders(ctx context.Context, log *slog.Logger) (int, error) {
	orders, err := s.Store.OrdersToPlace(ctx, 20, placementLease)
	if err != nil {
		return 0, err
	}
	for _, o := range orders {
		s.place(ctx, log, o)
	}
	return len(orders), nil
}

func (s *Shop) place(ctx context.Context, log *slog.Logger, o *Order) {
	step := Step{To: OrderPlaced}
	retailer, err := s.Catalog.Retailer(o.Environment, o.Retailer)
	var placement *Placement
	if err == nil {
		placement, err = retailer.PlaceOrder(ctx, RetailerOrder{OrderID: o.ID, Items: o.Items,
			Address: o.Address, Shipping: o.Shipping})
	}
	if err != nil {
		if kassa.ErrorKindOf(err) != kassa.KindInvalid && s.now().Sub(o.UpdatedAt) < placementDeadline {
			log.LogAttrs(ctx, slog.LevelWarn, "order placement will be retried",
				slog.String("order_id", o.ID), slog.String("error", err.Error()))
			return // the lease runs out and the order is tried again
		}
		step = Step{To: OrderFailed, Substatus: SubPlacementFailed,
			Message: "The retailer could not take the order: " + kassa.AsError(err).Message}
	}
	_, err = s.Store.ChangeOrder(ctx, o.MerchantID, o.ID, func(cur *Order, _ *kassa.Invoice, _ int, now time.Time) (InvoiceAction, error) {
		if cur.Status != OrderPaymentSettled {
			return InvoiceKeep, nil // moved on meanwhile (cancelled)
		}
		if placement != nil {
			cur.RetailerOrderID = placement.RetailerOrderID
		}
		return InvoiceKeep, cur.Advance(step, now)
	})
	if err != nil {
		log.LogAttrs(ctx, slog.LevelError, "recording order placement failed",
			slog.String("order_id", o.ID), slog.String("error", err.Error()))
	}
}

// RunPlacer places orders until ctx ends: at once, then every interval, one batch
// a round (worker.Loop).
func (s *Shop) RunPlacer(ctx context.Context, interval time.Duration, log *slog.Logger) {
	worker.Loop{Name: "order placement", Interval: interval, Log: log}.Run(ctx, func(ctx context.Context) (bool, error) {
		_, err := s.PlaceOrders(ctx, log)
		return false, err
	})
}
