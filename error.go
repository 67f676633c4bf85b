package kassa

import (
	"errors"
	"fmt"
)

// ErrorKind classifies a domain error. The HTTP layer maps each kind to one status
// code and one error type in a single table, so handlers never pick status codes.
type ErrorKind string

// Error kinds, one per class of failure a client can act on.
const (
	KindInvalid         ErrorKind = "invalid"         // bad input: 400
	KindUnauthenticated ErrorKind = "unauthenticated" // missing or bad credentials: 401
	KindPermission      ErrorKind = "permission"      // authenticated but not allowed: 403
	KindNotFound        ErrorKind = "not_found"       // no such object for this tenant: 404
	KindConflict        ErrorKind = "conflict"        // state does not allow it: 409
	KindIdempotency     ErrorKind = "idempotency"     // idempotency key misuse: 409
	KindGone            ErrorKind = "gone"            // the object is past its life: 410
	KindTooLarge        ErrorKind = "too_large"       // body over the limit: 413
	KindRateLimited     ErrorKind = "rate_limited"    // too many requests: 429
	KindUnavailable     ErrorKind = "unavailable"     // an upstream failed or timed out: 503
	KindInternal        ErrorKind = "internal"        // our fault: 500, details never shown
)

// Error is the error every domain and store function returns for failures a client
// should see. Code is a stable snake_case string; Param names the offending field.
type Error struct {
	Kind    ErrorKind
	Code    string
	Message string
	Param   string
}

func (e *Error) Error() string {
	if e.Param != "" {
		return fmt.Sprintf("%s: %s (param %s)", e.Code, e.Message, e.Param)
	}
	return fmt.Sprintf("%s: %s", e.Code, e.Message)
}

// Errorf returns an *Error of the given kind and code with a formatted message.
func Errorf(kind ErrorKind, code, format string, args ...any) *Error {
	return &Error{Kind: kind, Code: code, Message: fmt.Sprintf(format, args...)}
}

// Invalidf returns a KindInvalid error about param.
func Invalidf(param, code, format string, args ...any) *Error {
	return &Error{Kind: KindInvalid, Code: code, Param: param, Message: fmt.Sprintf(format, args...)}
}

// NotFound returns a KindNotFound error for an object of the named resource.
func NotFound(resource string) *Error {
	return &Error{Kind: KindNotFound, Code: "resource_missing", Message: "No such " + resource + "."}
}

// ErrUnavailable is what a client gets while a dependency the request needs (the
// store) does not answer: 503 service_unavailable with Retry-After.
var ErrUnavailable = &Error{Kind: KindUnavailable, Code: "service_unavailable",
	Message: "The service is temporarily unavailable. Please retry shortly."}

// foreignClassifiers turn errors from outside the domain into domain errors.
var foreignClassifiers []func(error) *Error

// RegisterErrorClassifier adds fn to what AsError asks about an error that is not
// an *Error: fn returns the domain error err stands for, or nil. The store registers
// one from an init function, so a connectivity failure of the database is
// ErrUnavailable wherever it surfaces. Call it only from init functions.
func RegisterErrorClassifier(fn func(error) *Error) {
	foreignClassifiers = append(foreignClassifiers, fn)
}

// AsError returns err as an *Error. Errors that are not *Error become what a
// registered classifier says, else KindInternal with a generic message, so
// internal details never reach a client.
func AsError(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	for _, classify := range foreignClassifiers {
		if e := classify(err); e != nil {
			return e
		}
	}
	return &Error{Kind: KindInternal, Code: "internal_error", Message: "An internal error occurred."}
}

// ErrorKindOf returns the kind of err, KindInternal for foreign errors and "" for nil.
func ErrorKindOf(err error) ErrorKind {
	if err == nil {
		return ""
	}
	return AsError(err).Kind
}

// ErrorCode returns the code of err, "internal_error" for foreign errors and "" for nil.
func ErrorCode(err error) string {
	if err == nil {
		return ""
	}
	return AsError(err).Code
}
