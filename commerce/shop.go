package commerce

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/kassapay/kassa"
)

// Shop is the commerce API: it runs the three checkout steps against a
// retailer catalog and the order store, and applies order changes through the
// domain's lifecycle rules. It implements Service.
type Shop struct {
	Catalog Catalog
	Store   OrderStore
	Payer   InvoicePayer     // pays an order's invoice in a devnet simulation; nil: such simulations are refused
	Now     func() time.Time // nil: time.Now
}

// InvoicePayer pays what an open devnet invoice still owes, from wallet when it is
// an EVM address, and reports whether it paid (payment.Service implements it).
type InvoicePayer interface {
	PayInvoice(ctx context.Context, merchantID int64, invoiceID string, wallet *string) (bool, error)
}

var _ Service = (*Shop)(nil)

func (s *Shop) now() time.Time {
	if s.Now != nil {
		return s.Now().UTC().Truncate(time.Microsecond)
	}
	return time.Now().UTC().Truncate(time.Microsecond)
}

// Search runs a product search in the caller's environment through the cache.
func (s *Shop) Search(ctx context.Context, p kassa.Principal, q SearchQuery) (*SearchPage, error) {
	return s.Catalog.Search(ctx, p.Environment, q)
}

// CacheStats reports the search cache.
func (s *Shop) CacheStats() CacheStats { return s.Catalog.CacheStats() }

// Estimate prices a cart (step 1): every item is looked up at its retailer and
// its price checked again, then priced by kassa.PriceEstimate. Valid 30 minutes.
func (s *Shop) Estimate(ctx context.Context, p kassa.Principal, r EstimateRequest) (*Estimate, error) {
	if err := CheckBuyer(r.Buyer); err != nil {
		return nil, err
	}
	if err := CheckCart(r.Items); err != nil {
		return nil, err
	}
	retailer, err := s.Catalog.Retailer(p.Environment, r.Items[0].Retailer)
	if err != nil {
		return nil, err
	}
	ids := make([]string, len(r.Items))
	for i, it := range r.Items {
		ids[i] = it.ProductID
	}
	prices, err := retailer.PriceCheck(ctx, ids)
	if err != nil {
		return nil, err
	}
	items := make([]LineItem, len(r.Items))
	for i, it := range r.Items {
		price, ok := prices[it.ProductID]
		if !ok {
			return nil, kassa.Invalidf(fmt.Sprintf("items[%d].product_id", i), "product_not_found",
				"No product %q at %s.", it.ProductID, retailer.Name())
		}
		prod, err := retailer.Product(ctx, it.ProductID)
		if err != nil {
			if kassa.ErrorKindOf(err) == kassa.KindNotFound {
				return nil, kassa.Invalidf(fmt.Sprintf("items[%d].product_id", i), "product_not_found",
					"No product %q at %s.", it.ProductID, retailer.Name())
			}
			return nil, err
		}
		items[i] = LineItem{ProductID: prod.ID, Title: prod.Title, ImageURL: prod.Image, Quantity: it.Quantity,
			UnitPrice: price, Retailer: retailer.Name(), Fresh: prod.Fresh, Status: ItemPending}
	}
	now := s.now()
	pr := PriceEstimate(items)
	e := &Estimate{ID: kassa.NewTimeUUID(now), MerchantID: p.MerchantID, Environment: p.Environment,
		Buyer: r.Buyer, Retailer: retailer.Name(), Items: items, Subtotal: pr.Subtotal,
		ShippingEstimate: pr.ShippingEstimate, Tax: pr.Tax, CommerceFee: pr.CommerceFee, Total: pr.Total,
		CreatedAt: now, ExpiresAt: now.Add(EstimateTTL)}
	if err := s.Store.SaveEstimate(ctx, e); err != nil {
		return nil, err
	}
	return e, nil
}

// estimate loads a live estimate of the caller for a checkout step.
func (s *Shop) estimate(ctx context.Context, p kassa.Principal, id, customerID string) (*Estimate, error) {
	e, err := s.Store.Estimate(ctx, p.MerchantID, p.Environment, id)
	if kassa.ErrorKindOf(err) == kassa.KindNotFound {
		return nil, kassa.Invalidf("estimateId", "estimate_not_found", "No estimate %q for this merchant.", id)
	}
	if err != nil {
		return nil, err
	}
	if !s.now().Before(e.ExpiresAt) {
		return nil, kassa.Invalidf("estimateId", "estimate_expired",
			"This estimate expired at %s; request a new one.", kassa.FormatTime(e.ExpiresAt))
	}
	if customerID != "" {
		if err := CheckBuyer(Buyer{CustomerID: customerID}); err != nil {
			return nil, err
		}
	}
	if e.Buyer.CustomerID != "" && customerID != "" && customerID != e.Buyer.CustomerID {
		return nil, kassa.Invalidf("customer_id", "customer_mismatch", "customer_id does not match the estimate's customer.")
	}
	return e, nil
}

// Address validates and standardises a shipping address for an estimate (step 2)
// and prices the shipping options for its cart.
func (s *Shop) Address(ctx context.Context, p kassa.Principal, r CheckoutAddressRequest) (*ShippingAddress, error) {
	e, err := s.estimate(ctx, p, r.EstimateID, r.CustomerID)
	if err != nil {
		return nil, err
	}
	std, err := StandardizeAddress(r.Address)
	if err != nil {
		return nil, err
	}
	now := s.now()
	a := &ShippingAddress{ID: kassa.NewTimeUUID(now), MerchantID: p.MerchantID, Environment: p.Environment,
		EstimateID: e.ID, CustomerID: r.CustomerID, Address: std, Options: ShippingOptions(e.Items), ValidatedAt: now}
	if err := s.Store.SaveShippingAddress(ctx, a); err != nil {
		return nil, err
	}
	return a, nil
}

// CreateOrder turns an estimate and an address into an invoice and an order (step
// 3), stored in one transaction.
func (s *Shop) CreateOrder(ctx context.Context, p kassa.Principal, r OrderInvoiceRequest, save *kassa.SavedResponse[CreatedOrder]) (*CreatedOrder, error) {
	if r.CustomerID == "" {
		return nil, kassa.Invalidf("customer_id", "missing_param", "customer_id is required.")
	}
	if r.RefundAddress != nil {
		if err := kassa.CheckEVMAddress("refundDestinationWalletAddressBsc", *r.RefundAddress); err != nil {
			return nil, err
		}
	}
	e, err := s.estimate(ctx, p, r.EstimateID, r.CustomerID)
	if err != nil {
		return nil, err
	}
	a, err := s.Store.ShippingAddress(ctx, p.MerchantID, p.Environment, r.AddressID)
	if err != nil || a.EstimateID != e.ID {
		if err == nil || kassa.ErrorKindOf(err) == kassa.KindNotFound {
			return nil, kassa.Invalidf("addressId", "address_not_found", "No address %q for this estimate.", r.AddressID)
		}
		return nil, err
	}
	optID := r.ShippingOptionID
	if optID == "" {
		optID = "standard"
	}
	opt, err := ShippingOptionByID(a.Options, optID)
	if err != nil {
		return nil, err
	}
	now := s.now()
	o := newOrder(p, e, r.CustomerID, a, opt, now)
	if r.RefundAddress != nil {
		o.RefundAddress = *r.RefundAddress
	}
	desc := fmt.Sprintf("Order %s: %d item(s) from %s", o.ID, len(o.Items), o.Retailer)
	meta, _ := json.Marshal(map[string]string{"commerce_order_id": o.ID, "estimate_id": e.ID})
	c := kassa.InvoiceCreate{Amount: o.Total, Description: &desc, Metadata: meta}
	if r.CustomerID != "" {
		c.CustomerID = &r.CustomerID
	}
	if a.Address.Email != "" {
		c.CustomerEmail = &a.Address.Email
	}
	inv, token, err := s.Store.CreateOrder(ctx, p, OrderCreate{Order: o, Invoice: c}, save)
	if err != nil {
		return nil, err
	}
	return &CreatedOrder{Order: o, Invoice: inv, SessionToken: token}, nil
}

// newOrder builds the pending order of a checkout; customerID is step 3's, which
// equals the estimate's customer when the estimate named one.
func newOrder(p kassa.Principal, e *Estimate, customerID string, a *ShippingAddress, opt ShippingOption, now time.Time) *Order {
	items := append([]LineItem(nil), e.Items...)
	o := &Order{ID: kassa.NewTimeUUID(now), MerchantID: p.MerchantID, Environment: p.Environment,
		EstimateID: e.ID, Retailer: e.Retailer, Buyer: e.Buyer, Status: OrderPendingPayment,
		Substatus: SubAwaitingPayment, Items: items, Address: *a, Shipping: opt,
		Subtotal: e.Subtotal, Tax: e.Tax, CommerceFee: e.CommerceFee, Total: OrderTotal(e, opt),
		Payment:      OrderPayment{Status: OrderPaymentUnpaid},
		Cancellation: CancellationNone, Refund: Refund{Status: RefundNone},
		WalletAddress: e.Buyer.WalletAddress, WalletNetwork: e.Buyer.WalletNetwork,
		Timeline:  []TimelineEntry{{Status: OrderPendingPayment, Timestamp: now, Message: "Order created; awaiting payment."}},
		CreatedAt: now, UpdatedAt: now}
	o.Buyer.CustomerID = customerID
	return o
}
