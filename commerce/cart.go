package commerce

import (
	"time"

	"github.com/kassapay/kassa"
)

// EstimateTTL is how long a checkout estimate can be turned into an order.
const EstimateTTL = 30 * time.Minute

// Cart limits: quantities per line and lines per cart.
const (
	MinItemQuantity = 1
	MaxItemQuantity = 99
	MaxCartItems    = 50
)

// CartItem is one line of an estimate request, decoded but not yet checked.
type CartItem struct {
	ProductID string
	Quantity  int
	Retailer  string // DefaultRetailer when the client named none
}

// Buyer names who checks out: a merchant's customer id, or a payor wallet.
type Buyer struct {
	CustomerID    string
	WalletAddress string
	WalletNetwork string
}

// EstimateRequest is step 1 of checkout.
type EstimateRequest struct {
	Buyer Buyer
	Items []CartItem
}

// LineItem is one priced line of an estimate or an order. UnitPrice is what the
// retailer charged when the estimate was made.
type LineItem struct {
	ProductID string
	Title     string
	ImageURL  string
	Quantity  int
	UnitPrice kassa.Millis
	Retailer  string
	Fresh     bool
	Status    string // an Item* value once the item belongs to an order
}

// LineTotal is UnitPrice × Quantity.
func (l LineItem) LineTotal() kassa.Millis { return l.UnitPrice * kassa.Millis(l.Quantity) }

// Estimate is a priced cart, valid until ExpiresAt (step 1's result).
type Estimate struct {
	ID               string
	MerchantID       int64
	Environment      kassa.Environment
	Buyer            Buyer
	Retailer         string
	Items            []LineItem
	Subtotal         kassa.Millis
	ShippingEstimate kassa.Millis // the standard shipping option's price
	Tax              kassa.Millis
	CommerceFee      kassa.Millis
	Total            kassa.Millis
	CreatedAt        time.Time
	ExpiresAt        time.Time
}

// ShippingAddressInput is a shipping address as the client sent it (step 2).
type ShippingAddressInput struct {
	FirstName     string
	LastName      string
	StreetAddress string
	AddressLine2  string
	City          string
	State         string
	ZipCode       string
	Country       string
	Phone         string
	Email         string
}

// ShippingAddress is a validated, standardised address saved for an estimate.
type ShippingAddress struct {
	ID          string
	MerchantID  int64
	Environment kassa.Environment
	EstimateID  string
	CustomerID  string
	Address     ShippingAddressInput // standardised
	Options     []ShippingOption
	ValidatedAt time.Time
}

// ShippingOption is one way to ship an order, priced for its cart.
type ShippingOption struct {
	ID            string
	Name          string
	Price         kassa.Millis
	EstimatedDays string // "5-7"
}

// Shipment is one parcel of an order on its way.
type Shipment struct {
	ShipmentID             string
	Carrier                string
	TrackingNumber         string
	CarrierTrackingURL     string
	DeliveryStatus         string // in_transit, out_for_delivery, delivered
	RetailerTrackingNumber string
	RetailerTrackingURL    string
	ObtainedAt             time.Time
}

// CheckoutAddressRequest is checkout step 2.
type CheckoutAddressRequest struct {
	CustomerID string
	EstimateID string
	Address    ShippingAddressInput
}

// OrderInvoiceRequest is checkout step 3.
type OrderInvoiceRequest struct {
	CustomerID       string
	EstimateID       string
	AddressID        string
	ShippingOptionID string // "standard" when the client named none
	RefundAddress    *string
}
