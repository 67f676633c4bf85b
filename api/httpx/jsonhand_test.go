package httpx

// The hand-made splitter and canonical form that jsontext replaced (ea3e239),
// kept in this one commit for BenchmarkSideBySide.

import (
	"bytes"
	"cmp"
	"encoding/json"
	"slices"
	"testing"
)

// splitObject returns the members of obj, a JSON object that json.Valid accepts,
// as ParseObject does: keys unescaped, values as they are written, a key met twice
// refused. Validity known, it only has to find where each member starts and
// ends, which costs a few percent of a create less than encoding/json's
// tokenizer (issue 17).
func splitObject(obj []byte, path string) ([]Field, error) {
	var (
		fields []Field
		seen   map[string]bool // once there are more than a few members
	)
	ms, err := members(obj)
	if err != nil {
		return nil, ErrInvalidJSON("The request body is not valid JSON.")
	}
	for _, m := range ms {
		p := JoinPath(path, m.key)
		if seenKey(fields, &seen, m.key) {
			return nil, ErrInvalid(p, "duplicate_parameter", "Parameter "+p+" appears more than once.")
		}
		fields = append(fields, Field{Key: m.key, Path: p, Raw: m.raw})
	}
	return fields, nil
}

// member is one member of a JSON object: its key unescaped, its value as written.
type member struct {
	key string
	raw []byte
}

// members returns the members of obj, a valid JSON object, in order.
func members(obj []byte) ([]member, error) {
	var out []member
	i := skipSpace(obj, 1)
	for obj[i] != '}' {
		end := stringEnd(obj, i)
		key, err := unquoteKey(obj[i:end])
		if err != nil {
			return nil, err
		}
		start := skipSpace(obj, skipSpace(obj, end)+1) // past the colon
		end = valueEnd(obj, start)
		out = append(out, member{key, obj[start:end]})
		i = skipSpace(obj, end)
		if obj[i] == ',' {
			i = skipSpace(obj, i+1)
		}
	}
	return out, nil
}

// skipSpace returns the index of the first byte at or after i that is not JSON
// whitespace.
func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// stringEnd returns the index just past the string that starts at b[i] (a quote).
func stringEnd(b []byte, i int) int {
	for i++; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++ // the escaped byte; a \u's hex digits are plain bytes
		case '"':
			return i + 1
		}
	}
	return len(b)
}

// valueEnd returns the index just past the value that starts at b[i].
func valueEnd(b []byte, i int) int {
	switch b[i] {
	case '"':
		return stringEnd(b, i)
	case '{', '[':
		depth := 0
		for i < len(b) {
			switch b[i] {
			case '"':
				i = stringEnd(b, i)
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
			i++
		}
		return len(b)
	}
	for ; i < len(b); i++ { // a number, true, false or null
		switch b[i] {
		case ',', '}', ']', ' ', '\t', '\n', '\r':
			return i
		}
	}
	return i
}

// unquoteKey returns the text of a JSON string token.
func unquoteKey(tok []byte) (string, error) {
	if bytes.IndexByte(tok, '\\') < 0 {
		return string(tok[1 : len(tok)-1]), nil
	}
	var s string
	err := json.Unmarshal(tok, &s)
	return s, err
}

// appendCanonical appends to dst the canonical form of v, a JSON value that
// json.Valid accepts: what json.Marshal gives for v decoded with UseNumber (no
// whitespace, object keys sorted and the last of a repeated key kept, strings
// in encoding/json's escaping, numbers as written). Idempotency fingerprints are
// hashes of it. With the hash it takes less than half the time of that decode
// and marshal alone (BenchmarkFingerprint), which was 2.5 % of an invoice
// create (issue 17); canonicalJSON stays for the bodies json.Valid refuses.
func appendCanonical(dst, v []byte) ([]byte, error) {
	i := skipSpace(v, 0)
	v = v[i:valueEnd(v, i)]
	switch v[0] {
	case '{':
		ms, err := members(v)
		if err != nil {
			return nil, err
		}
		slices.SortStableFunc(ms, func(a, b member) int { return cmp.Compare(a.key, b.key) })
		dst = append(dst, '{')
		for i, m := range ms {
			if i+1 < len(ms) && ms[i+1].key == m.key {
				continue // a later member of the same key wins
			}
			if len(dst) > 0 && dst[len(dst)-1] != '{' {
				dst = append(dst, ',')
			}
			if dst, err = appendCanonicalString(dst, m.key); err != nil {
				return nil, err
			}
			dst = append(dst, ':')
			if dst, err = appendCanonical(dst, m.raw); err != nil {
				return nil, err
			}
		}
		return append(dst, '}'), nil
	case '[':
		dst = append(dst, '[')
		for i := skipSpace(v, 1); v[i] != ']'; {
			if dst[len(dst)-1] != '[' {
				dst = append(dst, ',')
			}
			end := valueEnd(v, i)
			var err error
			if dst, err = appendCanonical(dst, v[i:end]); err != nil {
				return nil, err
			}
			if i = skipSpace(v, end); v[i] == ',' {
				i = skipSpace(v, i+1)
			}
		}
		return append(dst, ']'), nil
	case '"':
		if plainString(v[1 : len(v)-1]) {
			return append(dst, v...), nil
		}
		var s string
		if err := json.Unmarshal(v, &s); err != nil {
			return nil, err
		}
		return appendCanonicalString(dst, s)
	}
	return append(dst, v...), nil // a number, true, false or null, as written
}

// appendCanonicalString appends s as encoding/json writes it.
func appendCanonicalString(dst []byte, s string) ([]byte, error) {
	if plainString([]byte(s)) {
		dst = append(dst, '"')
		dst = append(dst, s...)
		return append(dst, '"'), nil
	}
	b, err := json.Marshal(s)
	return append(dst, b...), err
}

// plainString reports whether encoding/json writes the string of these bytes
// unchanged between its quotes: printable ASCII but for the characters it
// escapes (quote, backslash, and <, > and & as it escapes HTML).
func plainString(b []byte) bool {
	for _, c := range b {
		if c < 0x20 || c >= 0x80 || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			return false
		}
	}
	return true
}

// BenchmarkSideBySide: kassa-load's create body read by the hand-made splitter
// and by jsontext (readMembers), and put in canonical form by the hand-made
// canonical form, by jsontext (canonicalBody) and by encoding/json.
func BenchmarkSideBySide(b *testing.B) {
	body := []byte(memberCases[3])
	b.Run("parse/hand", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if !json.Valid(body) {
				b.Fatal()
			}
			if _, err := splitObject(body, ""); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("parse/jsontext", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := readMembers(body, ""); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("canon/hand", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if !json.Valid(body) {
				b.Fatal()
			}
			if _, err := appendCanonical(nil, body); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("canon/jsontext", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, ok := canonicalBody(body); !ok {
				b.Fatal()
			}
		}
	})
	b.Run("canon/encoding-json", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			canonicalJSON(body)
		}
	})
}
