// Package invoicejson writes the invoice's JSON by hand: the canonical object
// (docs/api.md 2.4; Marshal, Append), the invoice with its expansions
// (Expanded), the payor's view (Payor) and an event's data (EventData). The
// store, the merchant API and the payor API call it; the domain does not import
// it, and a kassa.Invoice refuses to be encoded by its Go fields.
//
// Why by hand: encoding/json's reflection was about a third of the CPU of an
// invoice list (one invoice 2,515 → 401 ns into a reused buffer; a list 191 →
// 113 µs), and github.com/go-json-experiment/json over tagged wire structs took
// 7,575–7,870 ns an invoice against 922–1,185, and 109–128 → 168–181 µs of
// server CPU a list on scripts/bench-list.sh (+50 %, beyond the 15 % issue 38
// allows): docs/performance.md, "JSON encoders: hand-written against
// go-json-experiment/json".
//
// What keeps it right: the output is byte for byte what encoding/json made of
// the tagged view structs it replaced (ref_test.go keeps them as the
// reference); TestInvoiceEncoderMatchesReflection and FuzzInvoiceJSON compare
// the two, BenchmarkInvoiceJSON measures both.
package invoicejson
