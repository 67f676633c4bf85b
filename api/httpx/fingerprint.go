package httpx

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
)

// fingerprint hashes method, path and the canonical form of a JSON body (keys
// sorted, whitespace dropped, numbers kept as written), so two requests with the same
// parameters match. A body that is not valid JSON is hashed as sent. Saved
// idempotency records hold it, so it must not change: TestFingerprintKept pins it.
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

// canonicalOptions make jsontext.AppendFormat write what encoding/json's
// marshalling of the value decoded with UseNumber writes (canonicalJSON): no
// whitespace, members sorted, strings in encoding/json's escaping (<, >, & and
// U+2028/9 escaped), numbers as written.
var canonicalOptions = []jsontext.Options{
	jsontext.ReorderRawObjects(true),
	jsontext.EscapeForHTML(true),
	jsontext.EscapeForJS(true),
}

// canonicalBody is body in canonical JSON, canonicalJSON's form; false when it
// is not one JSON value. jsontext writes it for the bodies where its order of
// names is encoding/json's and no name repeats (jsontext keeps both, encoding/json
// the last); encoding/json writes the others.
func canonicalBody(body []byte) ([]byte, bool) {
	if !utf8.Valid(body) {
		return nil, false
	}
	if !sortsApart(body) {
		if canon, err := jsontext.AppendFormat(nil, body, canonicalOptions...); err == nil {
			return canon, true
		}
	}
	return canonicalJSON(body)
}

// sortsApart reports whether body may hold a name that RFC 8785's order (UTF-16
// code units, jsontext's) and encoding/json's (bytes of UTF-8) put in different
// places: one with a character from U+E000 to U+FFFF (UTF-8 lead byte 0xEE or
// 0xEF, escape \uE… or \uF…) or above U+FFFF (lead byte 0xF0 to 0xF4, escape
// \uD8… to \uDB…; a lone surrogate, which encoding/json reads as U+FFFD, too).
// It may say yes of a body that has none (a \u in a value): that body only takes
// the slower way.
func sortsApart(body []byte) bool {
	for i, c := range body {
		switch {
		case c >= 0xEE:
			return true
		case c == '\\' && i+2 < len(body) && body[i+1] == 'u':
			switch body[i+2] {
			case 'd', 'D', 'e', 'E', 'f', 'F':
				return true
			}
		}
	}
	return false
}

// canonicalJSON is canonicalBody by encoding/json's decode and marshal: the
// definition of the canonical form, and the reading of a body jsontext refuses
// (a value followed by a closing bracket, say, still has one).
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
