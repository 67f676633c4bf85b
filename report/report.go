package report

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"io"
	"sort"
	"strconv"
	"strings"

	"kassa"
)

// Source is where reports read from: the merchant's invoices and their receipts,
// and the registry that names the receipts' tokens.
type Source struct {
	Invoices kassa.InvoiceService
	Payments kassa.PaymentService
	Registry kassa.Registry // token symbols and decimals of payments.csv; nil: those cells are empty
}

// Filter selects the invoices of a report: one merchant, optionally one
// environment and a creation range.
type Filter = kassa.InvoiceTotalsFilter

// table is a report before it is written: fixed columns, then metadata columns.
type table struct {
	header []string
	rows   [][]string
	meta   []map[string]string // per row: metadata key → cell
}

// add appends a row and its invoice's flattened metadata.
func (t *table) add(row []string, metadata []byte) {
	t.rows = append(t.rows, row)
	t.meta = append(t.meta, flatten(metadata))
}

// write writes the header and rows as CSV; the metadata columns are every key
// any row has, sorted, named metadata.<key>.
func (t *table) write(w io.Writer) error {
	keys := map[string]bool{}
	for _, m := range t.meta {
		for k := range m {
			keys[k] = true
		}
	}
	names := make([]string, 0, len(keys))
	for k := range keys {
		names = append(names, k)
	}
	sort.Strings(names)
	cw := csv.NewWriter(w)
	header := append([]string{}, t.header...)
	for _, k := range names {
		header = append(header, "metadata."+k)
	}
	if err := cw.Write(safe(header)); err != nil {
		return err
	}
	for i, row := range t.rows {
		for _, k := range names {
			row = append(row, t.meta[i][k])
		}
		if err := cw.Write(safe(row)); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
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
func safe(row []string) []string {
	for i, c := range row {
		if c != "" && strings.ContainsRune("=+-@\t\r", rune(c[0])) {
			row[i] = "'" + c
		}
	}
	return row
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

func str(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
