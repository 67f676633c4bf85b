package commerce

import (
	"context"
	"time"

	"github.com/kassapay/kassa"
)

// OrderStatus is where a commerce order stands; orderlifecycle.go has the rules.
type OrderStatus string

// Order statuses, the main line first, then the side exits.
const (
	OrderPendingPayment    OrderStatus = "pending_payment"
	OrderPaymentConfirmed  OrderStatus = "payment_confirmed"
	OrderPaymentSettled    OrderStatus = "payment_settled"
	OrderPlaced            OrderStatus = "placed"
	OrderShipped           OrderStatus = "shipped"
	OrderDeliveryConfirmed OrderStatus = "delivery_confirmed"
	OrderFailed            OrderStatus = "failed"
	OrderCancelled         OrderStatus = "cancelled"
	OrderRefunded          OrderStatus = "refunded"
)

// OrderStatuses lists every order status.
var OrderStatuses = []OrderStatus{OrderPendingPayment, OrderPaymentConfirmed, OrderPaymentSettled, OrderPlaced,
	OrderShipped, OrderDeliveryConfirmed, OrderFailed, OrderCancelled, OrderRefunded}

// Valid reports whether s is a known order status.
func (s OrderStatus) Valid() bool {
	for _, v := range OrderStatuses {
		if s == v {
			return true
		}
	}
	return false
}

// Refund statuses (refundStatus and refund.status).
const (
	RefundNone      = "NONE"
	RefundPending   = "PENDING"  // owed to the payor, not yet sent
	RefundCompleted = "REFUNDED" // sent and confirmed; TxHash set (decisions.md, "Chains")
	RefundFailed    = "FAILED"   // the transfer failed for good: a person must send it
)

// Cancellation statuses (cancellationStatus).
const (
	CancellationNone      = "none"
	CancellationCancelled = "cancelled"
)

// Payment statuses of an order's payment object.
const (
	OrderPaymentUnpaid    = "unpaid"
	OrderPaymentPending   = "pending" // money seen on chain, not yet confirmed
	OrderPaymentUnderpaid = "underpaid"
	OrderPaymentPaid      = "paid"
	OrderPaymentExpired   = "expired"
	OrderPaymentCanceled  = "canceled"
)

// TimelineEntry records one change of an order.
type TimelineEntry struct {
	Status    OrderStatus
	Timestamp time.Time
	Message   string
}

// OrderPayment is what the order knows of its invoice's money.
type OrderPayment struct {
	Status            string // an OrderPayment* value
	TxHash            string
	SettlementStatus  string // a SettlementStatus, "" before any payment
	SettlementTxHash  string
	SettlementNetwork string
}

// Refund is money owed back to the payor of a cancelled or failed paid order.
type Refund struct {
	Status      string // a Refund* value
	Amount      kassa.Millis
	Fee         kassa.Millis
	Destination string // EVM address on the refund network
	Network     string
	TokenSymbol string // the token refunded on chain; "" means RefundTokenSymbol
	Units       string // base units sent on chain, once a payout is queued
	TxHash      string
	CreatedAt   *time.Time
}

// Order is a commerce order: a priced cart, its shipping address and the invoice
// that pays for it, moving through OrderStatus as it is paid, placed and shipped.
type Order struct {
	ID              string
	MerchantID      int64
	Environment     kassa.Environment
	InvoiceID       string
	EstimateID      string
	Retailer        string
	Buyer           Buyer // the customer id or the payor wallet at checkout
	Status          OrderStatus
	Substatus       string
	Items           []LineItem
	Address         ShippingAddress
	Shipping        ShippingOption
	Subtotal        kassa.Millis
	Tax             kassa.Millis
	CommerceFee     kassa.Millis
	Total           kassa.Millis
	Payment         OrderPayment
	WalletAddress   string // the payor's wallet once paid
	WalletNetwork   string
	RefundAddress   string // refundDestinationWalletAddressBsc; "" when not given
	Cancellation    string // a Cancellation* value
	Refund          Refund
	Shipments       []Shipment
	RetailerOrderID string
	Timeline        []TimelineEntry
	CreatedAt       time.Time
	UpdatedAt       time.Time
}

// Paid reports whether the order's invoice money has been received.
func (o *Order) Paid() bool { return o.Payment.Status == OrderPaymentPaid }

// HoldsMoney reports whether the order holds money of the shopper that a refund
// can return: it was paid, or part of it was received before its invoice expired.
func (o *Order) HoldsMoney() bool { return o.Paid() || o.Refund.Status == RefundPending }

// CanCancelNow reports whether a cancel would be accepted now: the retailer does
// not have the order yet and no payment is part way (underpaid or unconfirmed).
func (o *Order) CanCancelNow() bool {
	return CanCancel(o.Status) && o.Payment.Status != OrderPaymentUnderpaid && o.Payment.Status != OrderPaymentPending
}

// OrderFilter selects a merchant's orders for a list, newest first.
type OrderFilter struct {
	MerchantID    int64
	Environment   kassa.Environment
	CustomerID    *string
	WalletAddress *string
	Statuses      []OrderStatus // any of these; none: every status
	Limit         int
	StartingAfter *string
	EndingBefore  *string
}

// OrderCreate is everything checkout step 3 stores: the order and its invoice,
// in one transaction.
type OrderCreate struct {
	Order   *Order
	Invoice *kassa.Invoice // made by the invoice service, not yet stored
	// SessionToken is the invoice's payment session token, stored only hashed.
	SessionToken string
}

// OrderChange is a transition to apply to a locked order: it receives the order,
// its invoice as stored (at its effective status) and the number of payments
// recorded against the invoice, and changes the order in place. It returns the
// invoice action the change needs (InvoiceKeep, or InvoiceCancel once
// kassa.CheckCancel allowed it); an error aborts the whole change.
type OrderChange func(o *Order, inv *kassa.Invoice, payments int, now time.Time) (InvoiceAction, error)

// InvoiceAction is what an order change does to the order's invoice.
type InvoiceAction int

// Invoice actions of an order change.
const (
	InvoiceKeep   InvoiceAction = iota
	InvoiceCancel               // cancel the invoice in the same transaction (the change checked kassa.CheckCancel)
)

// OrderStore keeps estimates, addresses and orders. Every order change is written
// with its commerce.order.* event in the same transaction.
type OrderStore interface {
	SaveEstimate(ctx context.Context, e *Estimate) error
	// Estimate returns one of the merchant's estimates in env, expired ones too.
	Estimate(ctx context.Context, merchantID int64, env kassa.Environment, id string) (*Estimate, error)
	SaveShippingAddress(ctx context.Context, a *ShippingAddress) error
	ShippingAddress(ctx context.Context, merchantID int64, env kassa.Environment, id string) (*ShippingAddress, error)
	// CreateOrder stores the invoice, then the order pointing at it, with
	// invoice.created and commerce.order.created, in one transaction; the order
	// takes the invoice's id and creation time.
	CreateOrder(ctx context.Context, c OrderCreate, save *kassa.SavedResponse[CreatedOrder]) error
	// Order returns one of the merchant's orders.
	Order(ctx context.Context, merchantID int64, id string) (*Order, error)
	// Orders returns a page of orders and whether more exist in the paging direction.
	Orders(ctx context.Context, f OrderFilter) ([]*Order, bool, error)
	// ChangeOrder locks the order and its invoice, applies change and saves the
	// result with commerce.order.updated (and the invoice's cancel and events when
	// asked) in one transaction. A change that leaves the order as it was writes
	// nothing.
	ChangeOrder(ctx context.Context, merchantID int64, id string, change OrderChange) (*Order, error)
	// OrdersToPlace returns up to limit settled mainnet orders waiting to be placed
	// with their retailer, leasing them for lease so two workers never place one
	// order at once.
	OrdersToPlace(ctx context.Context, limit int, lease time.Duration) ([]*Order, error)
}

// CreatedOrder is what CreateOrder made: the result a SavedResponse renders.
type CreatedOrder struct {
	Order        *Order
	Invoice      *kassa.Invoice
	SessionToken string
}

// SimulateRequest moves a devnet order to a stage (docs/api.md 4.6).
type SimulateRequest struct {
	TransitionTo  OrderStatus
	Tracking      *Tracking
	WalletAddress *string
	WalletNetwork *string
	// Paid is set by Simulate when it paid the order's invoice for this
	// simulation just before, so an order found at payment_confirmed already
	// reached that stage.
	Paid bool
}

// Tracking is the simulate request's tracking object: the shipment to record when
// the order ships. Empty fields get devnet defaults.
type Tracking struct {
	Carrier                string
	TrackingNumber         string
	CarrierTrackingURL     string
	RetailerTrackingNumber string
	RetailerTrackingURL    string
}

// CancelRequest cancels an order; RefundAddress overrides the refund destination
// given at checkout.
type CancelRequest struct {
	RefundAddress *string
	Reason        string
}

// Service is the commerce API behind its HTTP handlers: search, the three
// checkout steps, orders, cancel and the devnet simulation.
type Service interface {
	Search(ctx context.Context, p kassa.Principal, q SearchQuery) (*SearchPage, error)
	CacheStats() CacheStats
	Estimate(ctx context.Context, p kassa.Principal, r EstimateRequest) (*Estimate, error)
	Address(ctx context.Context, p kassa.Principal, r CheckoutAddressRequest) (*ShippingAddress, error)
	CreateOrder(ctx context.Context, p kassa.Principal, r OrderInvoiceRequest, save *kassa.SavedResponse[CreatedOrder]) (*CreatedOrder, error)
	Order(ctx context.Context, p kassa.Principal, id string) (*Order, error)
	Orders(ctx context.Context, f OrderFilter) ([]*Order, bool, error)
	Cancel(ctx context.Context, p kassa.Principal, id string, r CancelRequest) (*Order, error)
	Simulate(ctx context.Context, p kassa.Principal, id string, r SimulateRequest) (*Order, error)
}
