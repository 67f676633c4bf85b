package api

import (
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"kassa"
)

// Query bounds of the invoice list (interface 4.2).
const (
	defaultLimit = 10
	maxLimit     = 100
)

// queryValue returns the first value of a query parameter, "" when absent.
func queryValue(q url.Values, name string) string { return strings.TrimSpace(q.Get(name)) }

// intParam reads an integer parameter within [lo, hi], def when absent.
func intParam(q url.Values, name string, def, lo, hi int) (int, error) {
	v := queryValue(q, name)
	if v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < lo || n > hi {
		return 0, errInvalid(name, "invalid_"+name,
			name+" must be an integer between "+strconv.Itoa(lo)+" and "+strconv.Itoa(hi)+".")
	}
	return n, nil
}

// timeParam reads an RFC 3339 timestamp or integer Unix seconds; nil when absent.
func timeParam(q url.Values, name string) (*time.Time, error) {
	v := queryValue(q, name)
	if v == "" {
		return nil, nil
	}
	if t, ok := kassa.ParseTime(v); ok {
		return &t, nil
	}
	if n, err := strconv.ParseInt(v, 10, 64); err == nil && n >= 0 && n < 1e11 {
		t := time.Unix(n, 0).UTC()
		return &t, nil
	}
	return nil, errInvalid(name, "invalid_timestamp", name+" must be an RFC 3339 timestamp or Unix seconds.")
}

// envParam reads the environment filter; nil when absent.
func envParam(q url.Values) (*kassa.Environment, error) {
	v := queryValue(q, "environment")
	if v == "" {
		return nil, nil
	}
	env := kassa.Environment(v)
	if !env.Valid() {
		return nil, errInvalid("environment", "invalid_environment", "environment must be devnet or mainnet.")
	}
	return &env, nil
}

// customerParam reads the customer_id filter; nil when absent.
func customerParam(q url.Values) (*string, error) {
	v, ok := q["customer_id"]
	if !ok || v[0] == "" {
		return nil, nil
	}
	if utf8.RuneCountInString(v[0]) > 255 {
		return nil, errInvalid("customer_id", "invalid_customer_id", "customer_id must be at most 255 characters.")
	}
	return &v[0], nil
}

// commaList splits a comma-separated parameter; an empty item is refused.
func commaList(q url.Values, name string) ([]string, bool) {
	v := queryValue(q, name)
	if v == "" {
		return nil, true
	}
	parts := strings.Split(v, ",")
	for i, p := range parts {
		parts[i] = strings.TrimSpace(p)
		if parts[i] == "" {
			return nil, false
		}
	}
	return parts, true
}

var invoiceTypeName = regexp.MustCompile(`^[a-z][a-z0-9_]{0,31}$`)

// parseExpand reads expand (comma-separated or repeated, also as expand[]) and
// payments_limit. In lists the "data." prefix of Stripe is accepted too.
func parseExpand(q url.Values, list bool) (kassa.InvoiceExpand, error) {
	var e kassa.InvoiceExpand
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
			return e, errInvalid("expand", "invalid_expand",
				"expand accepts latest_payment and payments; "+strconv.Quote(it)+" cannot be expanded.")
		}
	}
	n, err := intParam(q, "payments_limit", defaultLimit, 1, maxLimit)
	e.PaymentsLimit = n
	return e, err
}

// parseInvoiceList reads every query parameter of the invoice list.
func parseInvoiceList(q url.Values, merchantID int64) (kassa.InvoiceFilter, kassa.InvoiceExpand, error) {
	f := kassa.InvoiceFilter{MerchantID: merchantID}
	var err error
	if f.Limit, err = intParam(q, "limit", defaultLimit, 1, maxLimit); err != nil {
		return f, kassa.InvoiceExpand{}, err
	}
	f.StartingAfter, f.EndingBefore = queryValue(q, "starting_after"), queryValue(q, "ending_before")
	for _, c := range []struct{ name, v string }{{"starting_after", f.StartingAfter}, {"ending_before", f.EndingBefore}} {
		if c.v != "" && !kassa.ValidUUID(c.v) {
			return f, kassa.InvoiceExpand{}, errInvalid(c.name, "invalid_cursor", c.name+" must be the id of an invoice.")
		}
	}
	if f.StartingAfter != "" && f.EndingBefore != "" {
		return f, kassa.InvoiceExpand{}, errInvalid("ending_before", "invalid_cursor",
			"starting_after and ending_before cannot be used together.")
	}
	f.StartingAfter, f.EndingBefore = strings.ToLower(f.StartingAfter), strings.ToLower(f.EndingBefore)
	statuses, ok := commaList(q, "status")
	for _, st := range statuses {
		ok = ok && kassa.InvoiceStatus(st).Valid()
		f.Statuses = append(f.Statuses, kassa.InvoiceStatus(st))
	}
	if !ok {
		return f, kassa.InvoiceExpand{}, errInvalid("status", "invalid_status",
			"status must be a comma-separated list of unpaid, underpaid, paid, expired, canceled.")
	}
	types, ok := commaList(q, "invoice_type")
	for _, t := range types {
		ok = ok && invoiceTypeName.MatchString(t)
	}
	if !ok {
		return f, kassa.InvoiceExpand{}, errInvalid("invoice_type", "invalid_invoice_type",
			"invoice_type must be a comma-separated list of invoice types such as standard.")
	}
	f.Types = types
	if f.CustomerID, err = customerParam(q); err != nil {
		return f, kassa.InvoiceExpand{}, err
	}
	if f.Environment, err = envParam(q); err != nil {
		return f, kassa.InvoiceExpand{}, err
	}
	if f.CreatedGTE, err = timeParam(q, "created_gte"); err != nil {
		return f, kassa.InvoiceExpand{}, err
	}
	if f.CreatedLTE, err = timeParam(q, "created_lte"); err != nil {
		return f, kassa.InvoiceExpand{}, err
	}
	e, err := parseExpand(q, true)
	return f, e, err
}

// parseTotals reads the query of the invoice totals.
func parseTotals(q url.Values, merchantID int64) (kassa.InvoiceTotalsFilter, error) {
	f := kassa.InvoiceTotalsFilter{MerchantID: merchantID}
	var err error
	if f.Environment, err = envParam(q); err != nil {
		return f, err
	}
	if f.CustomerID, err = customerParam(q); err != nil {
		return f, err
	}
	if f.CreatedGTE, err = timeParam(q, "created_gte"); err != nil {
		return f, err
	}
	f.CreatedLTE, err = timeParam(q, "created_lte")
	return f, err
}
