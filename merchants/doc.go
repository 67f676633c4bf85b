// Package merchants is the merchant account service. It owns the rules of an
// account: what a new one must hold, its login email in one form (trimmed,
// lower-cased), which changes need the password again (and the code when
// two-step sign-in is on, checked by package signin), which fields the
// dashboard's settings form changes, and mainnet access (kassa.Merchant.Allows).
// The store only persists what it is given: kassa.MerchantService, of which it
// uses Store. The merchant API's settings, the dashboard's settings and the
// `kassa merchant` command all go through it.
package merchants
