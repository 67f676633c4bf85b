package httpx

import (
	"errors"
	"log/slog"
	"net/http"
	"strings"

	"kassa"
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

// InternalMessage is the only message a 500 ever carries.
const InternalMessage = "An internal error occurred. Please retry; if it persists, contact support with the request id."

// errorEnvelope is the body of every error response on /api/v1.
type errorEnvelope struct {
	Error errorDetail `json:"error"`
}

type errorDetail struct {
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
	d := errorDetail{Type: class.typ, Code: e.Code, Message: e.Message, RequestID: requestID}
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
	var ke *kassa.Error
	if !errors.As(err, &ke) || ke.Kind == kassa.KindInternal {
		s.log.LogAttrs(r.Context(), slog.LevelError, "internal error",
			slog.String("request_id", id), slog.String("method", r.Method),
			slog.String("path", r.URL.Path), slog.String("error", err.Error()))
	}
	status, body := Classify(err, id)
	if IsCommerce(r) {
		WriteJSON(w, status, commerceError{Error: body.Error})
		return
	}
	WriteJSON(w, status, body)
}

// commerceError is the error body of the commerce API: its {success, data}
// envelope with success false and the same error object.
type commerceError struct {
	Success bool        `json:"success"`
	Error   errorDetail `json:"error"`
}

// WriteErrorStatus renders an error whose status is outside the kind table (405).
func WriteErrorStatus(w http.ResponseWriter, r *http.Request, status int, typ, code, msg string) {
	d := errorDetail{Type: typ, Code: code, Message: msg, RequestID: RequestID(r.Context())}
	if IsCommerce(r) {
		WriteJSON(w, status, commerceError{Error: d})
		return
	}
	WriteJSON(w, status, errorEnvelope{Error: d})
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
		body, _ = Marshal(errorEnvelope{Error: errorDetail{
			Type: "api_error", Code: "internal_error", Message: InternalMessage,
			RequestID: w.Header().Get("Request-Id"),
		}})
	}
	WriteRaw(w, status, body)
}

// WriteRaw writes an already encoded JSON body.
func WriteRaw(w http.ResponseWriter, status int, body []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
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

// IsCommerce reports whether a request is on the commerce API, whose errors carry
// the {success: false} envelope.
func IsCommerce(r *http.Request) bool { return strings.HasPrefix(r.URL.Path, "/api/commerce/") }
