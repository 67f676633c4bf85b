package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"unicode/utf8"
)

// field is one member of a JSON object: its key, its dotted path for error params,
// and its raw value without surrounding whitespace.
type field struct {
	key  string
	path string
	raw  json.RawMessage
}

func (f field) null() bool { return string(f.raw) == "null" }

func joinPath(prefix, key string) string {
	if prefix == "" {
		return key
	}
	return prefix + "." + key
}

func errInvalidJSON(msg string) error { return errInvalid("", "invalid_json", msg) }

func errUnknownParam(path string) error {
	return errInvalid(path, "unknown_parameter", "Received unknown parameter: "+path+".")
}

func errMissing(path string) error {
	return errInvalid(path, "missing_param", "Missing required parameter: "+path+".")
}

// parseObject reads a JSON object strictly: valid UTF-8, well-formed, no duplicate
// keys, nothing after it. path is "" for a request body (a non-object is then
// invalid_json) or the path of a nested object (a non-object is invalid_type).
func parseObject(data []byte, path string) ([]field, error) {
	if !utf8.Valid(data) {
		return nil, errInvalidJSON("The request body is not valid UTF-8.")
	}
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 || trimmed[0] != '{' {
		if path != "" {
			return nil, errInvalidType(path, "an object")
		}
		if len(trimmed) == 0 {
			return nil, errInvalidJSON("The request body must be a JSON object; it is empty.")
		}
		if !json.Valid(trimmed) {
			return nil, errInvalidJSON("The request body is not valid JSON.")
		}
		return nil, errInvalidJSON("The request body must be a JSON object.")
	}
	dec := json.NewDecoder(bytes.NewReader(trimmed))
	dec.UseNumber()
	malformed := errInvalidJSON("The request body is not valid JSON.")
	if _, err := dec.Token(); err != nil {
		return nil, malformed
	}
	var fields []field
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, malformed
		}
		key, ok := tok.(string)
		if !ok {
			return nil, malformed
		}
		p := joinPath(path, key)
		if seen[key] {
			return nil, errInvalid(p, "duplicate_parameter", "Parameter "+p+" appears more than once.")
		}
		seen[key] = true
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, malformed
		}
		fields = append(fields, field{key: key, path: p, raw: bytes.TrimSpace(raw)})
	}
	if tok, err := dec.Token(); err != nil || tok != json.Delim('}') {
		return nil, malformed
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errInvalidJSON("The request body must hold exactly one JSON object.")
	}
	return fields, nil
}

// optString reads a string field; null gives nil.
func optString(f field) (*string, error) {
	if f.null() {
		return nil, nil
	}
	s, err := reqString(f)
	if err != nil {
		return nil, err
	}
	return &s, nil
}

// reqString reads a string field; null and other types are invalid_type.
func reqString(f field) (string, error) {
	var s string
	if len(f.raw) == 0 || f.raw[0] != '"' || json.Unmarshal(f.raw, &s) != nil {
		return "", errInvalidType(f.path, "a string")
	}
	return s, nil
}

// optBool reads a boolean field; null gives nil.
func optBool(f field) (*bool, error) {
	switch string(f.raw) {
	case "null":
		return nil, nil
	case "true", "false":
		b := string(f.raw) == "true"
		return &b, nil
	}
	return nil, errInvalidType(f.path, "a boolean")
}

// isNumber reports whether raw is a JSON number token (not a string holding one).
func isNumber(raw []byte) bool {
	return len(raw) > 0 && (raw[0] == '-' || ('0' <= raw[0] && raw[0] <= '9'))
}

// integer reads a JSON number written as an integer (no fraction, no exponent).
// Integers that do not fit in an int64 give code tooBig.
func integer(f field, tooBig string) (int64, error) {
	if !isNumber(f.raw) {
		return 0, errInvalidType(f.path, "an integer")
	}
	if bytes.ContainsAny(f.raw, ".eE") {
		return 0, errInvalidType(f.path, "an integer (no fraction or exponent)")
	}
	n, err := strconv.ParseInt(string(f.raw), 10, 64)
	if err != nil {
		return 0, errInvalid(f.path, tooBig, f.path+" is out of range.")
	}
	return n, nil
}

// compactObject checks that a field holds a JSON object and returns it compacted,
// key order kept.
func compactObject(f field) ([]byte, error) {
	if _, err := parseObject(f.raw, f.path); err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, f.raw); err != nil {
		return nil, errInvalidType(f.path, "an object")
	}
	return buf.Bytes(), nil
}
