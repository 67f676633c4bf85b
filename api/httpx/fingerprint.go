package httpx

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"unicode/utf8"
)

// fingerprint hashes method, path and the canonical form of a JSON body (keys
// sorted, whitespace dropped, numbers kept as written), so two requests with the same
// parameters match. A body that is not valid JSON is hashed as sent.
func fingerprint(method, path string, body []byte) string {
	h := sha256.New()
	h.Write([]byte(method + "\n" + path + "\n"))
	if canon, ok := canonicalBody(body); ok {
		h.Write([]byte("json\n"))
		h.Write(canon)
	} else {
		h.Write([]byte("raw\n"))
		h.Write(body)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// canonicalBody is body in canonical JSON (appendCanonical); false when it is
// not one JSON value.
func canonicalBody(body []byte) ([]byte, bool) {
	if utf8.Valid(body) && json.Valid(body) {
		canon, err := appendCanonical(nil, body)
		return canon, err == nil
	}
	return canonicalJSON(body)
}

// canonicalJSON is canonicalBody by encoding/json's decode and marshal: the
// definition appendCanonical keeps to, and the reading of a body json.Valid
// refuses (a value followed by a closing bracket, say, still has one).
func canonicalJSON(body []byte) ([]byte, bool) {
	if !utf8.Valid(body) {
		return nil, false
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil || dec.More() {
		return nil, false
	}
	out, err := json.Marshal(v)
	return out, err == nil
}
