package commerce

import (
	"context"
	"strings"
	"time"

	"github.com/kassapay/kassa"
)

// Retailer names. The first is the default of search and checkout.
const (
	RetailerAmazon  = "amazon"
	RetailerShopify = "shopify"
)

// Retailers lists every retailer Kassa knows, the default first. A name outside
// this list is 400 invalid_retailer; a known one without a provider in the
// caller's environment is 400 retailer_not_supported.
var Retailers = []string{RetailerAmazon, RetailerShopify}

// DefaultRetailer is the retailer of a search or cart item that names none.
const DefaultRetailer = RetailerAmazon

// CheckRetailer checks that name is a known retailer.
func CheckRetailer(param, name string) error {
	for _, r := range Retailers {
		if r == name {
			return nil
		}
	}
	return kassa.Invalidf(param, "invalid_retailer", "%s must be one of %s.", param, strings.Join(Retailers, ", "))
}

// Product is one item a retailer sells. Price is in usd_millis.
type Product struct {
	ID          string
	Title       string
	Price       kassa.Millis
	Image       string // absolute URL
	Rating      Rating // 0 to 5 in tenths: 43 is 4.3 stars
	ReviewCount int
	Fresh       bool // perishable grocery, shipped cold
	Retailer    string
	URL         string // the product's page at the retailer
}

// Rating is a star rating in tenths of a star (0..50), so it stays an integer.
type Rating int

// SearchQuery is a validated product search.
type SearchQuery struct {
	Query    string
	Page     int // 1-based
	Limit    int // products per page
	Retailer string
	MinPrice *kassa.Millis
	MaxPrice *kassa.Millis
}

// Search limits (docs/api.md section 8, plus Kassa's bound on the undeclared limit).
const (
	MaxSearchQueryLen  = 200
	MaxSearchPage      = 100
	DefaultSearchLimit = 20
	MaxSearchLimit     = 50
)

// SearchPage is one page of search results and the number of matches in all.
type SearchPage struct {
	Products     []Product
	TotalResults int
}

// TotalPages is the number of pages of limit products the results fill.
func (p *SearchPage) TotalPages(limit int) int {
	if limit <= 0 || p.TotalResults == 0 {
		return 0
	}
	return (p.TotalResults + limit - 1) / limit
}

// CacheStats describes the search cache of one process.
type CacheStats struct {
	Hits      int64
	Misses    int64
	Size      int // entries held now
	MaxSize   int
	Evictions int64
	TTL       time.Duration
}

// HitRate is Hits / (Hits + Misses), 0 before any lookup.
func (s CacheStats) HitRate() float64 {
	if s.Hits+s.Misses == 0 {
		return 0
	}
	return float64(s.Hits) / float64(s.Hits+s.Misses)
}

// RetailerOrder is what Kassa asks a retailer to ship.
type RetailerOrder struct {
	OrderID  string // Kassa's order id, the retailer's idempotency key
	Items    []LineItem
	Address  ShippingAddress
	Shipping ShippingOption
}

// Placement is the retailer's answer to a placed order.
type Placement struct {
	RetailerOrderID string
}

// Retailer is one retailer's catalog and order desk. Devnet retailers are built-in
// catalogs that never ship anything; mainnet ones call an upstream API. Errors a
// client caused are *Error (a product that does not exist is NotFound("product"));
// an upstream that fails or times out is KindUnavailable.
type Retailer interface {
	// Name is the retailer's name, one of Retailers.
	Name() string
	// Search returns one page of products matching q, best matches first.
	Search(ctx context.Context, q SearchQuery) (*SearchPage, error)
	// Product returns one product with its current price.
	Product(ctx context.Context, id string) (*Product, error)
	// PriceCheck returns the current price of each product id it knows; ids it
	// does not know are missing from the map.
	PriceCheck(ctx context.Context, ids []string) (map[string]kassa.Millis, error)
	// PlaceOrder orders the items; calling it again with the same OrderID returns
	// the first placement (the retailer dedupes on it).
	PlaceOrder(ctx context.Context, o RetailerOrder) (*Placement, error)
	// CancelOrder cancels a placed order that has not shipped.
	CancelOrder(ctx context.Context, retailerOrderID string) error
	// Tracking returns the shipments of a placed order.
	Tracking(ctx context.Context, retailerOrderID string) ([]Shipment, error)
}

// Catalog finds the retailer that serves an environment and runs cached searches.
type Catalog interface {
	// Retailer returns the named retailer of env: 400 invalid_retailer for an
	// unknown name, 400 retailer_not_supported when env has no such provider.
	Retailer(env kassa.Environment, name string) (Retailer, error)
	// Search runs q (q.Retailer set) against env's retailer through the cache.
	Search(ctx context.Context, env kassa.Environment, q SearchQuery) (*SearchPage, error)
	// CacheStats reports the search cache.
	CacheStats() CacheStats
}
