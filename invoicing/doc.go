// Package invoicing is the invoice service: it owns the rules of a new invoice
// (the order of the checks, the mainnet gate through kassa.Merchant.Allows, and
// the defaults taken from the merchant's settings: expiry, title, footer, return
// URL, metadata) and of a cancel (the environment, then kassa.CheckCancel) over a
// Store that only persists: a cancel's rule runs inside the store's transaction as
// a Decide, on the row the store locked. Reads and totals pass through to the
// store. The API, the dashboard, devnet payments and checkout
// orders create invoices through it.
package invoicing
