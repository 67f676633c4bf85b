// Package report writes the CSV exports of decisions.md ("Merchant dashboard",
// Reports): one row per invoice (invoices.csv), per payment and per refund
// (payments.csv, refunds negative, told apart by its type column) or per refund
// (refunds.csv) of a merchant over a date range, with a header row, ISO 8601 UTC
// times, US dollar amounts with 3 decimals, metadata flattened into
// metadata.<key> columns, and cells that a spreadsheet would read as a formula
// prefixed with ' (a plain number in a numeric column stays a number). A report
// is run to its end into a temporary file (Source.Run), so a store error is an
// error answer rather than a cut-off file and memory does not grow with the
// rows, then written (Report.WriteTo). The API (/api/v1/reports/*.csv) and the
// dashboard's reports page both call it. Columns keep their names and order; a
// new one is added after the others (before the metadata columns), and the
// OpenAPI document lists them.
package report
