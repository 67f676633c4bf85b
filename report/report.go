package report

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/kassapay/kassa"
)

// Source is where reports read from: the merchant's invoices, their receipts and
// refunds, and the registry that names the receipts' tokens.
type Source struct {
	Invoices kassa.InvoiceService
	Payments kassa.PaymentService
	Refunds  kassa.RefundStore // refund rows of payments.csv and refunds.csv; nil: none
	Registry kassa.Registry    // token symbols and decimals of payments.csv; nil: those cells are empty
}

// Filter selects the invoices of a report: one merchant, optionally one
// environment and a creation range.
type Filter = kassa.InvoiceTotalsFilter

// Names are the reports Run knows, as their files are named.
var Names = []string{"invoices.csv", "payments.csv", "refunds.csv"}

// Run runs the report named name (one of Names) over f to its end and returns
// it ready to be written; an unknown name is kassa.NotFound("report"). A store
// that fails fails Run, before anything is written, so the caller answers an
// error rather than a cut-off file.
func (s Source) Run(ctx context.Context, name string, f Filter) (*Report, error) {
	switch name {
	case "invoices.csv":
		return s.invoices(ctx, f)
	case "payments.csv":
		return s.payments(ctx, f)
	case "refunds.csv":
		return s.refunds(ctx, f)
	}
	return nil, kassa.NotFound("report")
}

// flatten turns a metadata object into cells: strings as they are, anything else
// as its JSON.
func flatten(metadata []byte) map[string]string {
	out := map[string]string{}
	var m map[string]json.RawMessage
	if json.Unmarshal(metadata, &m) != nil {
		return out
	}
	for k, v := range m {
		var s string
		if json.Unmarshal(v, &s) == nil {
			out[k] = s
		} else {
			out[k] = string(v)
		}
	}
	return out
}

// safe guards cells against formula injection: a cell a spreadsheet would
// evaluate (starting with = + - @, a tab or a carriage return) gets a leading '.
// A cell of a numeric column (numeric[i]) that is a plain decimal number, such
// as a refund's "-5.000", stays as it is: a spreadsheet reads it as the number
// it is, and nothing in it can be evaluated; any other text there is guarded.
func safe(row []string, numeric []bool) []string {
	for i, c := range row {
		if c == "" || !strings.ContainsRune("=+-@\t\r", rune(c[0])) {
			continue
		}
		if i < len(numeric) && numeric[i] && plainNumber(c) {
			continue
		}
		row[i] = "'" + c
	}
	return row
}

// plainNumber reports whether c is an optional minus, digits and an optional
// fraction of digits: "-5.000", "-2500000".
func plainNumber(c string) bool {
	c = strings.TrimPrefix(c, "-")
	whole, frac, dot := strings.Cut(c, ".")
	return digits(whole) && (!dot || digits(frac))
}

func digits(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// each calls fn with every invoice of f, newest first, a page at a time.
func (s Source) each(ctx context.Context, f Filter, fn func(page []*kassa.Invoice) error) error {
	after := ""
	for {
		invs, more, err := s.Invoices.Invoices(ctx, kassa.InvoiceFilter{MerchantID: f.MerchantID, Environment: f.Environment,
			CustomerID: f.CustomerID, CreatedGTE: f.CreatedGTE, CreatedLTE: f.CreatedLTE, StartingAfter: after, Limit: 100})
		if err != nil {
			return err
		}
		if err := fn(invs); err != nil {
			return err
		}
		if !more || len(invs) == 0 {
			return nil
		}
		after = invs[len(invs)-1].ID
	}
}

// ids are the ids of page's invoices.
func ids(page []*kassa.Invoice) []string {
	out := make([]string, len(page))
	for i, inv := range page {
		out[i] = inv.ID
	}
	return out
}

func str(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
