package httpx

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"strings"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/signin"
)

// errorClass is the HTTP rendering of one kassa.ErrorKind.
type errorClass struct {
	status int
	typ    string
}

// errorTable is the one place that maps domain error kinds to HTTP status codes and
// error types. Handlers never choose status codes for errors.
var errorTable = map[kassa.ErrorKind]errorClass{
	kassa.KindInvalid:         {http.StatusBadRequest, "invalid_request_error"},
	kassa.KindUnauthenticated: {http.StatusUnauthorized, "authentication_error"},
	kassa.KindPermission:      {http.StatusForbidden, "permission_error"},
	kassa.KindNotFound:        {http.StatusNotFound, "not_found_error"},
	kassa.KindConflict:        {http.StatusConflict, "conflict_error"},
	kassa.KindIdempotency:     {http.StatusConflict, "idempotency_error"},
	kassa.KindGone:            {http.StatusGone, "invalid_request_error"},
	kassa.KindTooLarge:        {http.StatusRequestEntityTooLarge, "invalid_request_error"},
	kassa.KindRateLimited:     {http.StatusTooManyRequests, "rate_limit_error"},
	kassa.KindUnavailable:     {http.StatusServiceUnavailable, "api_error"},
	kassa.KindInternal:        {http.StatusInternalServerError, "api_error"},
}

// RetryAfterUnavailable is the Retry-After, in seconds, of a 503: how soon a client
// may try again while the store or an upstream does not answer.
const RetryAfterUnavailable = "5"

// InternalMessage is the only message a 500 ever carries.
const InternalMessage = "An internal error occurred. Please retry; if it persists, contact support with the request id."

// errorEnvelope is the body of every error response on /api/v1.
type errorEnvelope struct {
	Error ErrorDetail `json:"error"`
}

// ErrorDetail is the error object every error body carries.
type ErrorDetail struct {
	Type      string  `json:"type"`
	Code      string  `json:"code"`
	Message   string  `json:"message"`
	Param     *string `json:"param"`
	RequestID string  `json:"request_id"`
}

// Classify returns the status and body of err for the request with id requestID.
// Foreign errors and internal kinds become a generic 500.
func Classify(err error, requestID string) (int, errorEnvelope) {
	e := kassa.AsError(err)
	class, ok := errorTable[e.Kind]
	if !ok || e.Kind == kassa.KindInternal {
		class = errorTable[kassa.KindInternal]
		e = &kassa.Error{Kind: kassa.KindInternal, Code: "internal_error", Message: InternalMessage}
	}
	d := ErrorDetail{Type: class.typ, Code: e.Code, Message: e.Message, RequestID: requestID}
	if e.Param != "" {
		p := e.Param
		d.Param = &p
	}
	return class.status, errorEnvelope{Error: d}
}

// WriteError renders err as a JSON error response. Internal errors are logged with
// the request id; their details never reach the client.
func (s *Core) WriteError(w http.ResponseWriter, r *http.Request, err error) {
	id := RequestID(r.Context())
	switch kind := kassa.ErrorKindOf(err); {
	case kind == kassa.KindInternal:
		LogError(s.log, r, "internal error", err)
	case kind == kassa.KindUnavailable && !errors.As(err, new(*kassa.Error)):
		s.log.LogAttrs(r.Context(), slog.LevelWarn, "store unavailable",
			slog.String("request_id", id), slog.String("method", r.Method),
			slog.String("path", r.URL.Path), slog.String("error", err.Error()))
	}
	status, body := Classify(err, id)
	if status == http.StatusServiceUnavailable {
		w.Header().Set("Retry-After", RetryAfterUnavailable)
	}
	if held := (*signin.Held)(nil); errors.As(err, &held) {
		w.Header().Set("Retry-After", strconv.Itoa(held.RetrySeconds()))
	}
	WriteJSON(w, status, envelopeOf(r)(body.Error))
}

// commerceError is the error body of the commerce API: its {success, data}
// envelope with success false and the same error object.
type commerceError struct {
	Success bool        `json:"success"`
	Error   ErrorDetail `json:"error"`
}

// WriteErrorStatus renders an error whose status is outside the kind table (405).
func WriteErrorStatus(w http.ResponseWriter, r *http.Request, status int, typ, code, msg string) {
	d := ErrorDetail{Type: typ, Code: code, Message: msg, RequestID: RequestID(r.Context())}
	WriteJSON(w, status, envelopeOf(r)(d))
}

// Envelope wraps the error object into the error body of a surface.
type Envelope func(detail ErrorDetail) any

// V1Envelope is {"error": {...}}: the error body of /api/v1, the payor API and every
// path no surface claims.
func V1Envelope(d ErrorDetail) any { return errorEnvelope{Error: d} }

// CommerceEnvelope is {"success": false, "error": {...}}: the commerce API's
// {success, data} envelope for errors.
func CommerceEnvelope(d ErrorDetail) any { return commerceError{Error: d} }

type envelopeKey struct{}

// envelopeOf is the envelope of the surface a request is on (set by ServeHTTP).
func envelopeOf(r *http.Request) Envelope {
	if env, ok := r.Context().Value(envelopeKey{}).(Envelope); ok {
		return env
	}
	return V1Envelope
}

// Surface declares that every error under path prefix, unknown routes and
// methods included, is answered in env; other paths get V1Envelope.
func (s *Core) Surface(prefix string, env Envelope) {
	s.surfaces = append(s.surfaces, surface{prefix: prefix, env: env})
}

type surface struct {
	prefix string
	env    Envelope
}

// withEnvelope puts the envelope of r's surface in its context.
func (s *Core) withEnvelope(r *http.Request) *http.Request {
	for _, sf := range s.surfaces {
		if strings.HasPrefix(r.URL.Path, sf.prefix) {
			return r.WithContext(context.WithValue(r.Context(), envelopeKey{}, sf.env))
		}
	}
	return r
}

// Marshal encodes v as a response body: kassa.MarshalJSON (no HTML escaping, so
// payment URLs keep their '&') and a closing newline.
func Marshal(v any) ([]byte, error) {
	b, err := kassa.MarshalJSON(v)
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// WriteJSON writes v as a JSON response with the given status.
func WriteJSON(w http.ResponseWriter, status int, v any) {
	body, err := Marshal(v)
	if err != nil {
		status = http.StatusInternalServerError
		body, _ = Marshal(errorEnvelope{Error: ErrorDetail{
			Type: "api_error", Code: "internal_error", Message: InternalMessage,
			RequestID: w.Header().Get("Request-Id"),
		}})
	}
	WriteRaw(w, status, body)
}

// WriteRaw writes an already encoded JSON body. It is not to be cached, by the
// browser or anything between (Cache-Control: no-store), unless the handler set a
// Cache-Control of its own: JSON answers carry session tokens, API keys, webhook
// secrets and merchants' figures, and the few that may be cached say so.
func WriteRaw(w http.ResponseWriter, status int, body []byte) {
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("X-Content-Type-Options", "nosniff")
	if h.Get("Cache-Control") == "" {
		h.Set("Cache-Control", "no-store")
	}
	if status != http.StatusNoContent && status != http.StatusNotModified {
		// With its length known net/http sends the body as it is, not chunked: a
		// 16 KB list is two socket writes instead of three.
		h.Set("Content-Length", strconv.Itoa(len(body)))
	}
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// Error constructors used across handlers.

func ErrInvalid(param, code, msg string) error {
	return &kassa.Error{Kind: kassa.KindInvalid, Code: code, Message: msg, Param: param}
}

func ErrInvalidType(param, what string) error {
	return ErrInvalid(param, "invalid_type", param+" must be "+what+".")
}

func ErrUnauthenticated(code, msg string) error {
	return &kassa.Error{Kind: kassa.KindUnauthenticated, Code: code, Message: msg}
}

func ErrPermission(code, msg string) error {
	return &kassa.Error{Kind: kassa.KindPermission, Code: code, Message: msg}
}

// WriteCSV answers a CSV file to download as name, written by body. Should body
// fail part way (the client left, a read failed), the connection is aborted
// (http.ErrAbortHandler) so the client sees a broken download, never a file that
// looks complete.
func WriteCSV(w http.ResponseWriter, name string, body io.WriterTo) {
	w.Header().Set("Content-Type", "text/csv; charset=utf-8")
	w.Header().Set("Content-Disposition", `attachment; filename="`+name+`"`)
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
	if _, err := body.WriteTo(w); err != nil {
		panic(http.ErrAbortHandler)
	}
}
