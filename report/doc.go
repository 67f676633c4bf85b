// Package report writes the CSV exports of decisions.md ("Merchant dashboard",
// Reports): one row per invoice (invoices.csv) or per payment (payments.csv) of a
// merchant over a date range, with a header row, ISO 8601 UTC times, US dollar
// amounts with 3 decimals, metadata flattened into metadata.<key> columns, and
// cells that a spreadsheet would read as a formula prefixed with '. The API
// (/api/v1/reports/*.csv) and the dashboard's reports page both call it. Columns
// keep their names and order; a new one is added after the others (before the
// metadata columns), and the OpenAPI document lists them.
package report
