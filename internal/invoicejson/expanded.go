package invoicejson

import "github.com/kassapay/kassa"

// Expanded renders an invoice with the expansions asked for: latest_payment (the
// newest receipt, null until a payment exists) and payments (its receipts, newest
// first, at most PaymentsLimit; empty until payments exist). Receipts are rendered
// for the merchant, settlement fields included. With no expansion it is the
// canonical object, so an invoice inside any JSON answer is wrapped in it.
type Expanded struct {
	Invoice  *kassa.Invoice
	Expand   Expand
	Receipts []*kassa.Payment // newest first
}

// MarshalJSON renders the invoice with its expansions.
func (e Expanded) MarshalJSON() ([]byte, error) {
	b, err := e.AppendJSON(make([]byte, 0, size(e.Invoice)+1024*len(e.Receipts)))
	if err != nil {
		return nil, err
	}
	return b, nil
}

// AppendJSON appends what MarshalJSON returns to b; on an error b is returned as
// it was.
func (e Expanded) AppendJSON(b []byte) ([]byte, error) {
	out, err := appendFields(b, e.Invoice)
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
			r, err := kassa.MarshalJSON(e.Receipts[0])
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
			rs = []*kassa.Payment{}
		}
		r, err := kassa.MarshalJSON(rs)
		if err != nil {
			return b, err
		}
		out = append(out, `,"payments":`...)
		out = append(out, r...)
	}
	return append(out, '}'), nil
}
