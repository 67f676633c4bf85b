package httpx

import (
	"bytes"
	"encoding/json"
	"strconv"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
)

// Field is one member of a JSON object: its key, its dotted path for error params,
// and its raw value without surrounding whitespace.
type Field struct {
	Key  string
	Path string
	Raw  json.RawMessage
}

func (f Field) Null() bool { return string(f.Raw) == "null" }

func JoinPath(prefix, key string) string {
	if prefix == "" {
		return key
	}
	return prefix + "." + key
}

func ErrInvalidJSON(msg string) error { return ErrInvalid("", "invalid_json", msg) }

func ErrUnknownParam(path string) error {
	return ErrInvalid(path, "unknown_parameter", "Received unknown parameter: "+path+".")
}

func ErrMissing(path string) error {
	return ErrInvalid(path, "missing_param", "Missing required parameter: "+path+".")
}

// ParseObject reads a JSON object strictly: valid UTF-8, well-formed, no duplicate
// keys, nothing after it. path is "" for a request body (a non-object is then
// invalid_json) or the path of a nested object (a non-object is invalid_type).
func ParseObject(data []byte, path string) ([]Field, error) {
	if !utf8.Valid(data) {
		return nil, ErrInvalidJSON("The request body is not valid UTF-8.")
	}
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 || trimmed[0] != '{' {
		if path != "" {
			return nil, ErrInvalidType(path, "an object")
		}
		if len(trimmed) == 0 {
			return nil, ErrInvalidJSON("The request body must be a JSON object; it is empty.")
		}
		if !jsontext.Value(trimmed).IsValid(readOptions...) {
			return nil, ErrInvalidJSON("The request body is not valid JSON.")
		}
		return nil, ErrInvalidJSON("The request body must be a JSON object.")
	}
	return readMembers(trimmed, path)
}

// OptString reads a string field; null gives nil.
func OptString(f Field) (*string, error) {
	if f.Null() {
		return nil, nil
	}
	s, err := ReqString(f)
	if err != nil {
		return nil, err
	}
	return &s, nil
}

// ReqString reads a string field; null and other types are invalid_type.
func ReqString(f Field) (string, error) {
	var s string
	if len(f.Raw) == 0 || f.Raw[0] != '"' || json.Unmarshal(f.Raw, &s) != nil {
		return "", ErrInvalidType(f.Path, "a string")
	}
	return s, nil
}

// OptBool reads a boolean field; null gives nil.
func OptBool(f Field) (*bool, error) {
	switch string(f.Raw) {
	case "null":
		return nil, nil
	case "true", "false":
		b := string(f.Raw) == "true"
		return &b, nil
	}
	return nil, ErrInvalidType(f.Path, "a boolean")
}

// IsNumber reports whether raw is a JSON number token (not a string holding one).
func IsNumber(raw []byte) bool {
	return len(raw) > 0 && (raw[0] == '-' || ('0' <= raw[0] && raw[0] <= '9'))
}

// Integer reads a JSON number written as an Integer (no fraction, no exponent).
// Integers that do not fit in an int64 give code tooBig.
func Integer(f Field, tooBig string) (int64, error) {
	if !IsNumber(f.Raw) {
		return 0, ErrInvalidType(f.Path, "an integer")
	}
	if bytes.ContainsAny(f.Raw, ".eE") {
		return 0, ErrInvalidType(f.Path, "an integer (no fraction or exponent)")
	}
	n, err := strconv.ParseInt(string(f.Raw), 10, 64)
	if err != nil {
		return 0, ErrInvalid(f.Path, tooBig, f.Path+" is out of range.")
	}
	return n, nil
}

// CompactObject checks that a field holds a JSON object and returns it compacted,
// key order kept.
func CompactObject(f Field) ([]byte, error) {
	if _, err := ParseObject(f.Raw, f.Path); err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, f.Raw); err != nil {
		return nil, ErrInvalidType(f.Path, "an object")
	}
	return buf.Bytes(), nil
}

// StringInto reads a string or null field into *dst ("" for null).
func StringInto(f Field, dst *string) error {
	s, err := OptString(f)
	if s != nil {
		*dst = *s
	}
	return err
}

// Elements reads a JSON array field's Elements.
func Elements(f Field) ([]Field, error) {
	var raws []json.RawMessage
	if len(f.Raw) == 0 || f.Raw[0] != '[' || json.Unmarshal(f.Raw, &raws) != nil {
		return nil, ErrInvalidType(f.Path, "an array")
	}
	out := make([]Field, len(raws))
	for i, raw := range raws {
		out[i] = Field{Key: f.Key, Path: f.Path + "[" + strconv.Itoa(i) + "]", Raw: bytes.TrimSpace(raw)}
	}
	return out, nil
}
