package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"

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

// internalMessage is the only message a 500 ever carries.
const internalMessage = "An internal error occurred. Please retry; if it persists, contact support with the request id."

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

// classify returns the status and body of err for the request with id requestID.
// Foreign errors and internal kinds become a generic 500.
func classify(err error, requestID string) (int, errorEnvelope) {
	e := kassa.AsError(err)
	class, ok := errorTable[e.Kind]
	if !ok || e.Kind == kassa.KindInternal {
		class = errorTable[kassa.KindInternal]
		e = &kassa.Error{Kind: kassa.KindInternal, Code: "internal_error", Message: internalMessage}
	}
	d := errorDetail{Type: class.typ, Code: e.Code, Message: e.Message, RequestID: requestID}
	if e.Param != "" {
		p := e.Param
		d.Param = &p
	}
	return class.status, errorEnvelope{Error: d}
}

// writeError renders err as a JSON error response. Internal errors are logged with
// the request id; their details never reach the client.
func (s *server) writeError(w http.ResponseWriter, r *http.Request, err error) {
	id := requestID(r.Context())
	var ke *kassa.Error
	if !errors.As(err, &ke) || ke.Kind == kassa.KindInternal {
		s.log.LogAttrs(r.Context(), slog.LevelError, "internal error",
			slog.String("request_id", id), slog.String("method", r.Method),
			slog.String("path", r.URL.Path), slog.String("error", err.Error()))
	}
	status, body := classify(err, id)
	if isCommerce(r) {
		writeJSON(w, status, commerceError{Error: body.Error})
		return
	}
	writeJSON(w, status, body)
}

// commerceError is the error body of the commerce API: its {success, data}
// envelope with success false and the same error object.
type commerceError struct {
	Success bool        `json:"success"`
	Error   errorDetail `json:"error"`
}

// writeErrorStatus renders an error whose status is outside the kind table (405).
func writeErrorStatus(w http.ResponseWriter, r *http.Request, status int, typ, code, msg string) {
	d := errorDetail{Type: typ, Code: code, Message: msg, RequestID: requestID(r.Context())}
	if isCommerce(r) {
		writeJSON(w, status, commerceError{Error: d})
		return
	}
	writeJSON(w, status, errorEnvelope{Error: d})
}

// marshal encodes v as JSON without HTML escaping (payment URLs keep their '&').
func marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// writeJSON writes v as a JSON response with the given status.
func writeJSON(w http.ResponseWriter, status int, v any) {
	body, err := marshal(v)
	if err != nil {
		status = http.StatusInternalServerError
		body, _ = marshal(errorEnvelope{Error: errorDetail{
			Type: "api_error", Code: "internal_error", Message: internalMessage,
			RequestID: w.Header().Get("Request-Id"),
		}})
	}
	writeRaw(w, status, body)
}

// writeRaw writes an already encoded JSON body.
func writeRaw(w http.ResponseWriter, status int, body []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// Error constructors used across handlers.

func errInvalid(param, code, msg string) error {
	return &kassa.Error{Kind: kassa.KindInvalid, Code: code, Message: msg, Param: param}
}

func errInvalidType(param, what string) error {
	return errInvalid(param, "invalid_type", param+" must be "+what+".")
}

func errUnauthenticated(code, msg string) error {
	return &kassa.Error{Kind: kassa.KindUnauthenticated, Code: code, Message: msg}
}

func errPermission(code, msg string) error {
	return &kassa.Error{Kind: kassa.KindPermission, Code: code, Message: msg}
}
