// Package commerce is Kassa's commerce area, its domain and its service side by
// side, as package kassa is for invoices:
//
//   - the domain: orders and their pure lifecycle rules (order.go,
//     orderlifecycle.go, orderfollow.go, ordersimulate.go, orderjson.go), the
//     three checkout steps' types and rules (cart.go, checkoutprice.go,
//     shippingaddress.go), retailers and the interfaces of the order store and
//     the commerce API (retailer.go, order.go);
//   - the service: Shop runs search, checkout and orders over an OrderStore
//     (shop.go, orders.go) and places settled mainnet orders (placer.go);
//     CachedCatalog routes searches to the retailers with a cache (cache.go);
//     Builtin is the devnet catalog (builtin.go, search.go) and Upstream the
//     mainnet retailer API client (upstream.go).
//
// It imports only the domain, package worker (its loop) and the standard library,
// so the store may import it for its types as it imports package kassa; it must
// never import the store.
package commerce
