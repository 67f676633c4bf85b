package chain

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/rpc"
)

// ErrLagging is what a step returns (wrapped) when its node's view of the chain is
// behind what the caller already knows; Pool.Step then backs the endpoint off and
// tries the next one, as for an endpoint fault.
var ErrLagging = errors.New("chain: endpoint lags behind the known chain")

// ErrUnavailable is wrapped by Pool.Step's error when no endpoint of the network
// could run the step (all faulty, backing off or on another chain).
var ErrUnavailable = errors.New("chain: no endpoint available")

// Fault kinds of an EndpointError.
const (
	FaultTimeout   = "timeout"    // the call's timeout passed
	FaultTransport = "transport"  // connection refused, reset, TLS, DNS...
	FaultHTTP      = "http"       // a non-2xx HTTP status
	FaultRateLimit = "rate limit" // HTTP 429 or a JSON-RPC rate-limit answer
	FaultGarbage   = "garbage"    // an answer that is not what was asked
)

// EndpointError is a fault of the endpoint rather than an answer of the chain: the
// endpoint timed out, could not be reached, answered an HTTP error or rate limit,
// or answered something malformed. Pool.Step fails over on it. A JSON-RPC error
// answer ("execution reverted", "header not found") and ErrNotFound are not
// endpoint faults.
type EndpointError struct {
	Endpoint   string        // the endpoint's URL without credentials
	Method     string        // the JSON-RPC method
	Kind       string        // one of the Fault constants
	StatusCode int           // the HTTP status, for FaultHTTP and FaultRateLimit
	RetryAfter time.Duration // the 429 answer's Retry-After, 0 when absent
	Err        error
}

func (e *EndpointError) Error() string {
	return fmt.Sprintf("chain: endpoint %s: %s: %s: %v", e.Endpoint, e.Method, e.Kind, e.Err)
}

func (e *EndpointError) Unwrap() error { return e.Err }

// IsEndpointFault reports whether err is a fault of the endpoint that answered it
// (an EndpointError or ErrLagging), on which Pool.Step tries another endpoint.
func IsEndpointFault(err error) bool {
	var ee *EndpointError
	return errors.As(err, &ee) || errors.Is(err, ErrLagging)
}

// classify turns what go-ethereum's client returned for method into the error RPC
// returns: nil, the caller's context error, a JSON-RPC error answer (wrapped with
// the method), or an *EndpointError. parent is the caller's context, ci the
// call's HTTP trace.
func (r *RPC) classify(parent context.Context, ci *callInfo, method string, err error) error {
	if err == nil {
		return nil
	}
	if perr := parent.Err(); perr != nil {
		return perr
	}
	fault := func(kind string, e error) error {
		return &EndpointError{Endpoint: r.url, Method: method, Kind: kind, Err: e}
	}
	var he rpc.HTTPError
	var re rpc.Error
	var ue *url.Error
	switch {
	case errors.As(err, &ue):
		ue.URL = Redact(ue.URL) // its message would show the API key
		if ue.Timeout() || errors.Is(err, context.DeadlineExceeded) {
			return fault(FaultTimeout, err)
		}
		return fault(FaultTransport, err)
	case errors.Is(err, context.DeadlineExceeded):
		return fault(FaultTimeout, err)
	case errors.As(err, &he):
		if msg, ok := jsonRPCMessage(he.Body); ok && he.StatusCode != 429 && he.StatusCode < 500 {
			// Some providers answer a JSON-RPC error with a 4xx status.
			return r.answerError(method, &jsonRPCError{code: he.StatusCode, msg: msg})
		}
		ee := &EndpointError{Endpoint: r.url, Method: method, Kind: FaultHTTP, StatusCode: he.StatusCode,
			Err: fmt.Errorf("HTTP %s", he.Status)}
		if he.StatusCode == 429 {
			ee.Kind = FaultRateLimit
			ee.RetryAfter = ci.retryAfter()
		}
		return ee
	case errors.As(err, &re):
		return r.answerError(method, re)
	}
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	if errors.As(err, &se) || errors.As(err, &te) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, rpc.ErrNoResult) || errors.Is(err, rpc.ErrMissingBatchResponse) ||
		strings.Contains(err.Error(), "json: ") || strings.Contains(err.Error(), "hex string") {
		return fault(FaultGarbage, err)
	}
	return fault(FaultTransport, err)
}

// answerError wraps a JSON-RPC error answer; a rate-limit answer is a fault.
func (r *RPC) answerError(method string, re rpc.Error) error {
	msg := strings.ToLower(re.Error())
	if re.ErrorCode() == 429 || strings.Contains(msg, "rate limit") || strings.Contains(msg, "too many requests") {
		return &EndpointError{Endpoint: r.url, Method: method, Kind: FaultRateLimit, Err: re}
	}
	return fmt.Errorf("chain: %s: %w", method, re)
}

// jsonRPCError is a JSON-RPC error found in an HTTP error's body.
type jsonRPCError struct {
	code int
	msg  string
}

func (e *jsonRPCError) Error() string  { return e.msg }
func (e *jsonRPCError) ErrorCode() int { return e.code }

// jsonRPCMessage finds the message of a JSON-RPC error answer in body.
func jsonRPCMessage(body []byte) (string, bool) {
	var m struct {
		Error *struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal(body, &m) != nil || m.Error == nil || m.Error.Message == "" {
		return "", false
	}
	return m.Error.Message, true
}

// rangeTooLarge reports whether err is a node's answer that an eth_getLogs query
// covers too much (block range or result size), so a smaller range may succeed.
// The phrases are those of common providers (Infura, Alchemy, Ankr, QuickNode...).
func rangeTooLarge(err error) bool {
	if err == nil || IsEndpointFault(err) {
		return false
	}
	var re rpc.Error
	if !errors.As(err, &re) {
		return false
	}
	msg := strings.ToLower(re.Error())
	for _, s := range []string{"limit exceeded", "range too large", "too many", "exceed",
		"query returned more than", "block range", "response size", "is limited to"} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}

// Redact returns rawURL without what may carry credentials: user info, query and
// fragment, and a path (RPC providers put API keys there) replaced by "/…".
func Redact(rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil || u.Host == "" {
		return "(unparsable url)"
	}
	s := u.Scheme + "://" + u.Host
	if u.Path != "" && u.Path != "/" {
		s += "/…"
	}
	return s
}
