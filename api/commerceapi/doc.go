// Package commerceapi is the commerce API (/api/commerce, docs/api.md 4.6): product
// search, the three-step checkout (estimate, address, invoice), orders, their
// payment status, cancellation and the devnet simulation. Only commerce-scope API
// keys are admitted (httpx.Core.Commerce); every answer is the {success, data}
// envelope, and errors are {success: false, error}, which httpx renders for paths
// under /api/commerce/.
//
//   - commerce.go: API, Config, New; status, orders and an order's payment status;
//   - checkout.go: the checkout steps, cancellation and simulation;
//   - commercedecode.go: strict decoders of the request bodies;
//   - search.go: product search and its query parameters.
//
// Handlers decode, call commerce.Service and encode; the rules live in package
// commerce.
package commerceapi
