package commerce

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/kassapay/kassa"
)

// CatalogSize is the number of products in each built-in devnet catalog.
const CatalogSize = 3000

// Builtin is a devnet retailer whose catalog is generated in memory, the same on
// every run and machine. It never ships anything: placing an order returns a
// devnet order id, and shipments come from the simulate endpoint.
//
// The catalog is generated on first use, not at start: with its search index it
// holds about 3.7 MiB of live heap, which a server whose merchants never use
// the devnet shop would otherwise carry, and which the garbage collector would
// mark at every cycle (docs/performance.md, "Memory after a create load").
type Builtin struct {
	name    string
	once    sync.Once
	catalog *builtinCatalog
}

// builtinCatalog is a generated catalog and its indexes.
type builtinCatalog struct {
	products []Product
	byID     map[string]int
	index    *searchIndex
}

// NewBuiltin returns the built-in catalog of a retailer in Retailers; its
// products are generated on first use.
func NewBuiltin(name string) *Builtin {
	return &Builtin{name: name}
}

// load returns the catalog, generating it the first time.
func (b *Builtin) load() *builtinCatalog {
	b.once.Do(func() { b.catalog = generateCatalog(b.name) })
	return b.catalog
}

// generateCatalog makes the catalog of the retailer name.
func generateCatalog(name string) *builtinCatalog {
	b := &builtinCatalog{byID: map[string]int{}}
	seed := uint64(1)
	for _, c := range name {
		seed = seed*131 + uint64(c)
	}
	g := &rng{state: seed}
	for i := 0; len(b.products) < CatalogSize; i++ {
		p := generateProduct(g, name, i)
		if _, dup := b.byID[p.ID]; dup {
			continue
		}
		b.byID[p.ID] = len(b.products)
		b.products = append(b.products, p)
	}
	b.index = newSearchIndex(b.products)
	return b
}

// Name is the retailer's name.
func (b *Builtin) Name() string { return b.name }

// Products returns the whole catalog (for tests and tools; do not modify).
func (b *Builtin) Products() []Product { return b.load().products }

// Search returns one page of matches, best first.
func (b *Builtin) Search(_ context.Context, q SearchQuery) (*SearchPage, error) {
	return b.load().index.search(q), nil
}

// Product returns one product.
func (b *Builtin) Product(_ context.Context, id string) (*Product, error) {
	c := b.load()
	i, ok := c.byID[id]
	if !ok {
		return nil, &kassa.Error{Kind: kassa.KindNotFound, Code: "product_not_found", Message: "No such product."}
	}
	p := c.products[i]
	return &p, nil
}

// PriceCheck returns the current price of each known id.
func (b *Builtin) PriceCheck(_ context.Context, ids []string) (map[string]kassa.Millis, error) {
	c := b.load()
	out := make(map[string]kassa.Millis, len(ids))
	for _, id := range ids {
		if i, ok := c.byID[id]; ok {
			out[id] = c.products[i].Price
		}
	}
	return out, nil
}

// PlaceOrder returns a devnet retailer order id derived from the order id: the
// same order always gets the same id, and nothing is ordered.
func (b *Builtin) PlaceOrder(_ context.Context, o RetailerOrder) (*Placement, error) {
	return &Placement{RetailerOrderID: "devnet-" + b.name + "-" + strings.ReplaceAll(o.OrderID, "-", "")[:16]}, nil
}

// CancelOrder does nothing: devnet orders never reach a retailer.
func (b *Builtin) CancelOrder(context.Context, string) error { return nil }

// Tracking returns no shipments: devnet shipments come from the simulate endpoint.
func (b *Builtin) Tracking(context.Context, string) ([]Shipment, error) { return nil, nil }

// rng is splitmix64: tiny, fast and fixed, so catalogs never change with a Go release.
type rng struct{ state uint64 }

func (r *rng) next() uint64 {
	r.state += 0x9e3779b97f4a7c15
	z := r.state
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

func (r *rng) intn(n int) int { return int(r.next() % uint64(n)) }

func (r *rng) pick(list []string) string { return list[r.intn(len(list))] }

const base36 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"

// generateProduct makes the i-th product of a catalog.
func generateProduct(g *rng, retailer string, i int) Product {
	cat := categories[g.intn(len(categories))]
	noun := g.pick(cat.nouns)
	var title string
	if cat.fresh {
		title = fmt.Sprintf("%s %s %s, %s", g.pick(freshBrands), g.pick(cat.adjectives), noun, g.pick(cat.sizes))
	} else {
		title = fmt.Sprintf("%s %s %s %s - %s", g.pick(brands), g.pick(cat.adjectives), g.pick(colors), noun, g.pick(cat.sizes))
	}
	lo, hi := cat.minPrice, cat.maxPrice
	dollars := lo + g.intn(hi-lo+1)
	cents := []int{99, 49, 95, 00, 89, 29}[g.intn(6)]
	price := kassa.Millis(dollars*1000 + cents*10)
	p := Product{Title: title, Price: price, Rating: Rating(28 + g.intn(23)),
		ReviewCount: g.intn(1000) * (1 + g.intn(40)), Fresh: cat.fresh, Retailer: retailer}
	switch retailer {
	case RetailerShopify:
		p.ID = strconv.FormatUint(7_000_000_000_000+g.next()%1_000_000_000_000, 10)
		handle := strings.ToLower(strings.NewReplacer(",", "", " - ", "-", " ", "-").Replace(title))
		p.URL = "https://" + g.pick(shops) + ".myshopify.com/products/" + handle
	default:
		id := []byte("B0")
		for k := 0; k < 8; k++ {
			id = append(id, base36[g.intn(36)])
		}
		p.ID = string(id)
		p.URL = "https://www.amazon.com/dp/" + p.ID
	}
	p.Image = "https://images.devnet.kassa.dev/" + retailer + "/" + p.ID + ".jpg"
	return p
}
