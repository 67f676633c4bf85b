package kassa

import (
	"bytes"
	"encoding/json"
	"errors"
)

// errInvoiceJSON refuses to encode an Invoice by its Go fields.
var errInvoiceJSON = errors.New("kassa: an invoice is encoded by internal/invoicejson, not by its Go fields")

// MarshalJSON refuses: the invoice's wire shapes are internal/invoicejson's
// (Marshal, Expanded, Payor), and an invoice encoded any other way would show its
// Go field names to a client.
func (Invoice) MarshalJSON() ([]byte, error) { return nil, errInvoiceJSON }

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
