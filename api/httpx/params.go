package httpx

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/kassapay/kassa"
)

// QueryValue returns the first value of a query parameter, "" when absent.
func QueryValue(q url.Values, name string) string { return strings.TrimSpace(q.Get(name)) }

// IntParam reads an integer parameter within [lo, hi], def when absent.
func IntParam(q url.Values, name string, def, lo, hi int) (int, error) {
	v := QueryValue(q, name)
	if v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < lo || n > hi {
		return 0, ErrInvalid(name, "invalid_"+name,
			name+" must be an integer between "+strconv.Itoa(lo)+" and "+strconv.Itoa(hi)+".")
	}
	return n, nil
}

// TimeParam reads an RFC 3339 timestamp or integer Unix seconds; nil when absent.
func TimeParam(q url.Values, name string) (*time.Time, error) {
	v := QueryValue(q, name)
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
	return nil, ErrInvalid(name, "invalid_timestamp", name+" must be an RFC 3339 timestamp or Unix seconds.")
}

// EnvParam reads the environment filter; nil when absent.
func EnvParam(q url.Values) (*kassa.Environment, error) {
	v := QueryValue(q, "environment")
	if v == "" {
		return nil, nil
	}
	env := kassa.Environment(v)
	if !env.Valid() {
		return nil, ErrInvalid("environment", "invalid_environment", "environment must be devnet or mainnet.")
	}
	return &env, nil
}

// CommaList splits a comma-separated parameter; an empty item is refused.
func CommaList(q url.Values, name string) ([]string, bool) {
	v := QueryValue(q, name)
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

// InvoiceID reads an invoice id path value (name). The interface types it as a
// UUID, so anything else is an invalid parameter (400); a well-formed id that names
// no invoice of the caller is for the handler to answer (404).
func InvoiceID(r *http.Request, name string) (string, error) {
	id := strings.ToLower(r.PathValue(name))
	if !kassa.ValidUUID(id) {
		return "", ErrInvalid("invoiceId", "invalid_invoice_id", "The invoice id must be a UUID.")
	}
	return id, nil
}
