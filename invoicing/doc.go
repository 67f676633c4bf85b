// Package invoicing is the invoice service: it owns the rules of a new invoice
// (the order of the checks, the mainnet gate through kassa.Merchant.Allows, and
// the defaults taken from the merchant's settings: expiry, title, footer, return
// URL, metadata) over a Store that only persists. Reads, cancel and totals pass
// through to the store. The API, the dashboard, devnet payments and checkout
// orders create invoices through it.
package invoicing
