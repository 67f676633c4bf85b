package merchantapi

import (
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/api/httpx"
	"github.com/kassapay/kassa/internal/invoicejson"
)

// customerParam reads the customer_id filter; nil when absent.
func customerParam(q url.Values) (*string, error) {
	v, ok := q["customer_id"]
	if !ok || v[0] == "" {
		return nil, nil
	}
	if utf8.RuneCountInString(v[0]) > 255 {
		return nil, httpx.ErrInvalid("customer_id", "invalid_customer_id", "customer_id must be at most 255 characters.")
	}
	return &v[0], nil
}

var invoiceTypeName = regexp.MustCompile(`^[a-z][a-z0-9_]{0,31}$`)

// parseExpand reads expand (comma-separated or repeated, also as expand[]) and
// payments_limit. In lists the "data." prefix of Stripe is accepted too.
func parseExpand(q url.Values, list bool) (invoicejson.Expand, error) {
	var e invoicejson.Expand
	var items []string
	for _, name := range []string{"expand", "expand[]"} {
		for _, v := range q[name] {
			items = append(items, strings.Split(v, ",")...)
		}
	}
	for _, it := range items {
		it = strings.TrimSpace(it)
		if list {
			it = strings.TrimPrefix(it, "data.")
		}
		switch it {
		case "latest_payment":
			e.LatestPayment = true
		case "payments":
			e.Payments = true
		default:
			return e, httpx.ErrInvalid("expand", "invalid_expand",
				"expand accepts latest_payment and payments; "+strconv.Quote(it)+" cannot be expanded.")
		}
	}
	n, err := httpx.LimitParam(q, "payments_limit")
	e.PaymentsLimit = n
	return e, err
}

// parseInvoiceList reads every query parameter of the invoice list.
func parseInvoiceList(q url.Values, merchantID int64) (kassa.InvoiceFilter, invoicejson.Expand, error) {
	f := kassa.InvoiceFilter{MerchantID: merchantID}
	var err error
	if f.Limit, err = httpx.LimitParam(q, "limit"); err != nil {
		return f, invoicejson.Expand{}, err
	}
	f.StartingAfter, f.EndingBefore = httpx.QueryValue(q, "starting_after"), httpx.QueryValue(q, "ending_before")
	for _, c := range []struct{ name, v string }{{"starting_after", f.StartingAfter}, {"ending_before", f.EndingBefore}} {
		if c.v != "" && !kassa.ValidUUID(c.v) {
			return f, invoicejson.Expand{}, httpx.ErrInvalid(c.name, "invalid_cursor", c.name+" must be the id of an invoice.")
		}
	}
	if f.StartingAfter != "" && f.EndingBefore != "" {
		return f, invoicejson.Expand{}, httpx.ErrInvalid("ending_before", "invalid_cursor",
			"starting_after and ending_before cannot be used together.")
	}
	f.StartingAfter, f.EndingBefore = strings.ToLower(f.StartingAfter), strings.ToLower(f.EndingBefore)
	statuses, ok := httpx.CommaList(q, "status")
	for _, st := range statuses {
		ok = ok && kassa.InvoiceStatus(st).Valid()
		f.Statuses = append(f.Statuses, kassa.InvoiceStatus(st))
	}
	if !ok {
		return f, invoicejson.Expand{}, httpx.ErrInvalid("status", "invalid_status",
			"status must be a comma-separated list of unpaid, underpaid, paid, expired, canceled.")
	}
	types, ok := httpx.CommaList(q, "invoice_type")
	for _, t := range types {
		ok = ok && invoiceTypeName.MatchString(t)
	}
	if !ok {
		return f, invoicejson.Expand{}, httpx.ErrInvalid("invoice_type", "invalid_invoice_type",
			"invoice_type must be a comma-separated list of invoice types such as standard.")
	}
	f.Types = types
	if f.CustomerID, err = customerParam(q); err != nil {
		return f, invoicejson.Expand{}, err
	}
	if f.Environment, err = httpx.EnvParam(q); err != nil {
		return f, invoicejson.Expand{}, err
	}
	if f.CreatedGTE, err = httpx.TimeParam(q, "created_gte"); err != nil {
		return f, invoicejson.Expand{}, err
	}
	if f.CreatedLTE, err = httpx.TimeParam(q, "created_lte"); err != nil {
		return f, invoicejson.Expand{}, err
	}
	e, err := parseExpand(q, true)
	return f, e, err
}

// parseTotals reads the query of the invoice totals.
func parseTotals(q url.Values, merchantID int64) (kassa.InvoiceTotalsFilter, error) {
	f := kassa.InvoiceTotalsFilter{MerchantID: merchantID}
	var err error
	if f.Environment, err = httpx.EnvParam(q); err != nil {
		return f, err
	}
	if f.CustomerID, err = customerParam(q); err != nil {
		return f, err
	}
	if f.CreatedGTE, err = httpx.TimeParam(q, "created_gte"); err != nil {
		return f, err
	}
	f.CreatedLTE, err = httpx.TimeParam(q, "created_lte")
	return f, err
}
