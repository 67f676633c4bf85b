package httpx

import (
	"bytes"
	"net/http"
)

// Every request body decoder goes through DecodeFields: the body is parsed
// strictly first (ParseObject), then each member is handed to a FieldFunc in body
// order, so the first unknown or invalid member in the body is the one reported.
// Checks of required members belong after the call.

// FieldFunc decodes one top-level member of a request body. It returns known =
// false for a key it does not accept, which DecodeFields reports as
// unknown_parameter; an error stops the decoding.
type FieldFunc func(f Field) (known bool, err error)

// EmptyBody says whether a request body may be absent, and what counts as absent.
type EmptyBody uint8

const (
	// BodyRequired: the body must be a JSON object; an empty one is invalid_json.
	BodyRequired EmptyBody = iota
	// BodyOptional: a zero-length body decodes as {}; whitespace alone is still
	// invalid_json.
	BodyOptional
	// BodyOptionalBlank: a body that is empty or only whitespace decodes as {}.
	BodyOptionalBlank
)

// absent reports whether body counts as no body under e.
func (e EmptyBody) absent(body []byte) bool {
	switch e {
	case BodyOptional:
		return len(body) == 0
	case BodyOptionalBlank:
		return len(bytes.TrimSpace(body)) == 0
	}
	return false
}

// DecodeFields parses body as a JSON object strictly and hands each member to
// set, in body order; a member set does not know is unknown_parameter.
func DecodeFields(body []byte, set FieldFunc) error { return decodeObject(body, "", set) }

// DecodeObject is DecodeFields for a nested object, the value of f: a non-object
// is invalid_type, and errors name members by their path below f.Path.
func DecodeObject(f Field, set FieldFunc) error { return decodeObject(f.Raw, f.Path, set) }

func decodeObject(data []byte, path string, set FieldFunc) error {
	fields, err := ParseObject(data, path)
	if err != nil {
		return err
	}
	for _, f := range fields {
		known, err := set(f)
		if err != nil {
			return err
		}
		if !known {
			return ErrUnknownParam(f.Path)
		}
	}
	return nil
}

// DecodeJSON reads the request body, which must be a JSON object, and decodes it
// with DecodeFields.
func DecodeJSON(r *http.Request, set FieldFunc) error {
	return DecodeRequest(r, BodyRequired, set)
}

// DecodeRequest is DecodeJSON for a route whose body may be absent as empty
// says; an absent body is {}: set is never called.
func DecodeRequest(r *http.Request, empty EmptyBody, set FieldFunc) error {
	body, err := ReadBody(r)
	if err != nil {
		return err
	}
	if empty.absent(body) {
		return nil
	}
	return DecodeFields(body, set)
}

// DecodeBody reads the request body and decodes it with decode, a decoder of
// bytes (built on DecodeFields) that unit tests can call directly.
func DecodeBody[T any](r *http.Request, decode func([]byte) (T, error)) (T, error) {
	body, err := ReadBody(r)
	if err != nil {
		var zero T
		return zero, err
	}
	return decode(body)
}

// RequireFields returns missing_param for the first of keys not in got.
func RequireFields(got map[string]bool, keys ...string) error {
	for _, k := range keys {
		if !got[k] {
			return ErrMissing(k)
		}
	}
	return nil
}
