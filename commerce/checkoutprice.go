package commerce

import (
	"strconv"

	"github.com/kassapay/kassa"
)

// Checkout pricing. Every amount is whole cents (usd_millis divisible by 10), so
// what a shopper sees in cents adds up exactly.
const (
	EstimateTaxBasisPoints              = 825 // 8.25 %: an estimate; the retailer charges the destination's tax
	CommerceFeeBasisPoints              = 250 // 2.5 % of the subtotal
	MinCommerceFee         kassa.Millis = 500 // $0.50
	FreeShippingFrom       kassa.Millis = 35_000
	StandardShipping       kassa.Millis = 5_990
	ExpeditedShipping      kassa.Millis = 12_990
	OvernightShipping      kassa.Millis = 24_990
	ColdChainSurcharge     kassa.Millis = 7_990 // fresh items ship cold
)

// EstimatePrice is the price of a cart.
type EstimatePrice struct {
	Subtotal, ShippingEstimate, Tax, CommerceFee, Total kassa.Millis
}

// basisPoints returns bp/10000 of a non-negative m, rounded half up to the cent
// in one step (rounding to the milli first could move a cent).
func basisPoints(m kassa.Millis, bp int64) kassa.Millis {
	return kassa.Millis((int64(m)*bp + 50_000) / 100_000 * 10)
}

// PriceEstimate prices a cart: subtotal, standard shipping, estimated tax, the
// commerce fee and their total.
func PriceEstimate(items []LineItem) EstimatePrice {
	var p EstimatePrice
	for _, it := range items {
		p.Subtotal += it.LineTotal()
	}
	p.ShippingEstimate = ShippingOptions(items)[0].Price
	p.Tax = basisPoints(p.Subtotal, EstimateTaxBasisPoints)
	p.CommerceFee = max(basisPoints(p.Subtotal, CommerceFeeBasisPoints), MinCommerceFee)
	p.Total = p.Subtotal + p.ShippingEstimate + p.Tax + p.CommerceFee
	return p
}

// ShippingOptions prices the ways a cart can ship: standard (free from $35
// unless something ships cold), expedited and overnight; fresh items add a
// cold-chain surcharge to each.
func ShippingOptions(items []LineItem) []ShippingOption {
	var subtotal kassa.Millis
	fresh := false
	for _, it := range items {
		subtotal += it.LineTotal()
		fresh = fresh || it.Fresh
	}
	standard := StandardShipping
	if subtotal >= FreeShippingFrom && !fresh {
		standard = 0
	}
	opts := []ShippingOption{
		{ID: "standard", Name: "Standard shipping", Price: standard, EstimatedDays: "5-7"},
		{ID: "expedited", Name: "Expedited shipping", Price: ExpeditedShipping, EstimatedDays: "2-3"},
		{ID: "overnight", Name: "Overnight", Price: OvernightShipping, EstimatedDays: "1"},
	}
	if fresh {
		for i := range opts {
			opts[i].Price += ColdChainSurcharge
		}
	}
	return opts
}

// ShippingOptionByID finds a shipping option by id.
func ShippingOptionByID(opts []ShippingOption, id string) (ShippingOption, error) {
	for _, o := range opts {
		if o.ID == id {
			return o, nil
		}
	}
	return ShippingOption{}, kassa.Invalidf("shippingOptionId", "invalid_shipping_option",
		"shippingOptionId must be one of the address step's shipping options (standard, expedited, overnight).")
}

// OrderTotal is what an order of estimate e shipped by opt costs.
func OrderTotal(e *Estimate, opt ShippingOption) kassa.Millis {
	return e.Subtotal + opt.Price + e.Tax + e.CommerceFee
}

// RefundQuote is what a cancelled paid order refunds: the total less the
// commerce fee, never below zero.
func RefundQuote(total, fee kassa.Millis) kassa.Millis { return max(total-fee, 0) }

// CheckCart checks an estimate's items: 1 to 50 lines of one retailer, each a
// product id with a quantity of 1 to 99, no product twice.
func CheckCart(items []CartItem) error {
	if len(items) == 0 {
		return kassa.Invalidf("items", "empty_cart", "items must hold at least one product.")
	}
	if len(items) > MaxCartItems {
		return kassa.Invalidf("items", "too_many_items", "items may hold at most %d products.", MaxCartItems)
	}
	seen := map[string]bool{}
	for i, it := range items {
		p := "items[" + strconv.Itoa(i) + "]"
		switch {
		case it.ProductID == "" || len(it.ProductID) > 255 || !PlainText(it.ProductID):
			return kassa.Invalidf(p+".product_id", "invalid_product_id", "%s.product_id must be 1 to 255 characters.", p)
		case it.Quantity < MinItemQuantity || it.Quantity > MaxItemQuantity:
			return kassa.Invalidf(p+".quantity", "invalid_quantity", "%s.quantity must be between 1 and 99.", p)
		case seen[it.ProductID]:
			return kassa.Invalidf(p+".product_id", "duplicate_item", "Product %q is in the cart twice; raise its quantity instead.", it.ProductID)
		}
		if err := CheckRetailer(p+".retailer", it.Retailer); err != nil {
			return err
		}
		if it.Retailer != items[0].Retailer {
			return kassa.Invalidf(p+".retailer", "mixed_retailers", "All items of one checkout must come from one retailer.")
		}
		seen[it.ProductID] = true
	}
	return nil
}

// CheckBuyer checks who checks out: a customer id, or a wallet address with its
// network.
func CheckBuyer(b Buyer) error {
	if len(b.CustomerID) > 255 || !PlainText(b.CustomerID) {
		return kassa.Invalidf("customer_id", "invalid_customer_id", "customer_id must be at most 255 characters of text.")
	}
	switch {
	case b.CustomerID == "" && b.WalletAddress == "" && b.WalletNetwork == "":
		return kassa.Invalidf("customer_id", "missing_param", "customer_id or wallet_address and wallet_network is required.")
	case b.WalletAddress != "" && b.WalletNetwork == "":
		return kassa.Invalidf("wallet_network", "missing_param", "wallet_network is required with wallet_address.")
	case b.WalletNetwork != "" && b.WalletAddress == "":
		return kassa.Invalidf("wallet_address", "missing_param", "wallet_address is required with wallet_network.")
	}
	if b.WalletNetwork != "" {
		if len(b.WalletNetwork) > 64 || !PlainText(b.WalletNetwork) {
			return kassa.Invalidf("wallet_network", "invalid_wallet_network", "wallet_network must be a network name of at most 64 characters.")
		}
		return kassa.CheckEVMAddress("wallet_address", b.WalletAddress)
	}
	return nil
}
