package kassa

import (
	"bytes"
	"encoding/json"
)

// MarshalJSON renders the canonical invoice object without expansions
// (docs/api.md 2.4): snake_case, amounts in usd_millis with three-decimal twins,
// every nullable field present. It has a value receiver so that an Invoice value
// (not only a pointer) marshals as the canonical object too.
func (inv Invoice) MarshalJSON() ([]byte, error) {
	b, err := inv.AppendJSON(make([]byte, 0, inv.jsonSize()))
	if err != nil {
		return nil, err
	}
	return b, nil
}

// InvoiceExpand names the optional parts of an invoice a client asked for.
type InvoiceExpand struct {
	LatestPayment bool
	Payments      bool
	PaymentsLimit int
}

// ExpandedInvoice renders an invoice with the expansions asked for: latest_payment
// (the newest receipt, null until a payment exists) and payments (its receipts,
// newest first, at most PaymentsLimit; empty until payments exist). Receipts are
// rendered for the merchant, settlement fields included.
type ExpandedInvoice struct {
	Invoice  *Invoice
	Expand   InvoiceExpand
	Receipts []*InvoicePayment // newest first
}

// MarshalJSON renders the invoice with its expansions.
func (e ExpandedInvoice) MarshalJSON() ([]byte, error) {
	b, err := e.AppendJSON(make([]byte, 0, e.Invoice.jsonSize()+1024*len(e.Receipts)))
	if err != nil {
		return nil, err
	}
	return b, nil
}

// AppendJSON appends what MarshalJSON returns to b; on an error b is returned as
// it was.
func (e ExpandedInvoice) AppendJSON(b []byte) ([]byte, error) {
	out, err := e.Invoice.appendFields(b)
	if err != nil {
		return b, err
	}
	// Receipts are rare in a list and keep encoding/json: MarshalJSON's output is
	// already compact, as the RawMessage it used to be wrapped in would make it.
	if e.Expand.LatestPayment {
		out = append(out, `,"latest_payment":`...)
		if len(e.Receipts) == 0 {
			out = append(out, "null"...)
		} else {
			r, err := MarshalJSON(e.Receipts[0])
			if err != nil {
				return b, err
			}
			out = append(out, r...)
		}
	}
	if e.Expand.Payments {
		rs := e.Receipts
		if e.Expand.PaymentsLimit > 0 && len(rs) > e.Expand.PaymentsLimit {
			rs = rs[:e.Expand.PaymentsLimit]
		}
		if rs == nil {
			rs = []*InvoicePayment{}
		}
		r, err := MarshalJSON(rs)
		if err != nil {
			return b, err
		}
		out = append(out, `,"payments":`...)
		out = append(out, r...)
	}
	return append(out, '}'), nil
}

// MarshalJSON encodes v without escaping <, > and & (encoding/json's default), so
// merchant-supplied text such as metadata comes back as it was sent. Encoders that
// wrap its output must also call SetEscapeHTML(false).
func MarshalJSON(v any) ([]byte, error) {
	buf := bytes.NewBuffer(make([]byte, 0, 2048)) // an invoice is about 1.5 KB
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}
