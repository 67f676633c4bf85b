package httpx

import (
	"bytes"
	"encoding/json"
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

// seenKey reports whether key is among the fields' keys: a walk of the few
// members a body usually has, then a set, so that a body of many keys costs no
// more than linear time.
func seenKey(fields []Field, seen *map[string]bool, key string) bool {
	if *seen == nil && len(fields) < 16 {
		for _, f := range fields {
			if f.Key == key {
				return true
			}
		}
		return false
	}
	if *seen == nil {
		*seen = make(map[string]bool, 2*len(fields))
		for _, f := range fields {
			(*seen)[f.Key] = true
		}
	}
	if (*seen)[key] {
		return true
	}
	(*seen)[key] = true
	return false
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
