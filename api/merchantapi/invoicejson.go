package merchantapi

import (
	"context"
	"net/http"
	"strconv"
	"sync"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/api/httpx"
	"github.com/kassapay/kassa/internal/invoicejson"
)

// The invoice answers are appended by hand (internal/invoicejson and the
// envelopes below) rather than passed through encoding/json, which reflected over
// every field and then checked and copied each invoice's bytes again; their bytes
// are the same (invoicejson_test.go compares them with encoding/json's).

// listBuffers keeps list bodies' buffers between requests: a page of ten invoices
// is about 10 KB, allocated and cleared on every request otherwise.
var listBuffers = sync.Pool{New: func() any { return new([]byte) }}

// maxPooledList bounds the buffers kept: a page of 100 large invoices is not.
const maxPooledList = 256 << 10

// appendInvoiceList appends the list envelope (docs/api.md 2.5) of invoices and a
// closing newline, as httpx.Marshal would render it.
func (a *API) appendInvoiceList(ctx context.Context, b []byte, invs []*kassa.Invoice, e invoicejson.Expand, more bool, url string) ([]byte, error) {
	b = append(b, `{"object":"list","data":[`...)
	for i, inv := range invs {
		x, err := a.expand(ctx, inv, e)
		if err != nil {
			return nil, err
		}
		if i > 0 {
			b = append(b, ',')
		}
		if b, err = x.AppendJSON(b); err != nil {
			return nil, err
		}
	}
	b = append(b, `],"has_more":`...)
	b = strconv.AppendBool(b, more)
	b = append(b, `,"url":`...)
	b = invoicejson.AppendString(b, url)
	return append(b, "}\n"...), nil
}

// writeList answers a page of invoices, its body built in a pooled buffer
// (http.ResponseWriter.Write keeps no reference to it).
func (a *API) writeList(ctx context.Context, w http.ResponseWriter, invs []*kassa.Invoice, e invoicejson.Expand, more bool, url string) error {
	buf := listBuffers.Get().(*[]byte)
	body, err := a.appendInvoiceList(ctx, (*buf)[:0], invs, e, more, url)
	if err != nil {
		listBuffers.Put(buf)
		return err
	}
	httpx.WriteRaw(w, http.StatusOK, body)
	if cap(body) <= maxPooledList {
		*buf = body
		listBuffers.Put(buf)
	}
	return nil
}

// appendInvoiceCreated appends the create answer and a closing newline, as
// httpx.Marshal renders invoiceCreated.
func appendInvoiceCreated(b []byte, c *invoiceCreated) ([]byte, error) {
	b = append(b, `{"invoice_id":`...)
	b = invoicejson.AppendString(b, c.InvoiceID)
	b = append(b, `,"payment_url":`...)
	b = invoicejson.AppendString(b, c.PaymentURL)
	b = append(b, `,"expires_at":`...)
	b = invoicejson.AppendString(b, c.ExpiresAt)
	b = append(b, `,"session_token":`...)
	b = invoicejson.AppendString(b, c.SessionToken)
	b = append(b, `,"signature":`...)
	b = invoicejson.AppendString(b, c.Signature)
	b = append(b, `,"payment_session_headers":{"x-session-token":`...)
	b = invoicejson.AppendString(b, c.PaymentSessionHeaders.SessionToken)
	b = append(b, `,"x-signature":`...)
	b = invoicejson.AppendString(b, c.PaymentSessionHeaders.Signature)
	b = append(b, `},"invoice":`...)
	if c.Invoice == nil {
		b = append(b, "null"...)
	} else {
		var err error
		if b, err = invoicejson.Append(b, c.Invoice); err != nil {
			return nil, err
		}
	}
	return append(b, "}\n"...), nil
}

// marshalInvoiceCreated renders the create answer as a response body.
func marshalInvoiceCreated(c invoiceCreated) ([]byte, error) {
	return appendInvoiceCreated(make([]byte, 0, 1536+len(c.PaymentURL)), &c)
}

// writeInvoice answers one invoice (with its expansions) like httpx.WriteJSON.
func writeInvoice(w http.ResponseWriter, status int, x invoicejson.Expanded) {
	b, err := x.AppendJSON(make([]byte, 0, 1536))
	if err != nil {
		httpx.WriteJSON(w, status, x) // the same failure, answered as WriteJSON answers it
		return
	}
	httpx.WriteRaw(w, status, append(b, '\n'))
}
