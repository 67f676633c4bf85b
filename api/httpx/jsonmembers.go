package httpx

import (
	"bytes"
	"errors"
	"io"
	"sync"

	"github.com/go-json-experiment/json/jsontext"
)

// readOptions are jsontext's syntax rules with two of its checks left to
// ParseObject: names may repeat below the top level (a nested object is checked
// when a decoder asks for it, DecodeObject), and UTF-8 is checked once for the
// whole body, so an escaped lone surrogate reads as encoding/json reads it.
var readOptions = []jsontext.Options{jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true)}

// memberReader is a pooled jsontext.Decoder over a pooled bytes.Buffer, which
// jsontext reads in place.
type memberReader struct {
	dec jsontext.Decoder
	buf bytes.Buffer
}

var memberReaders = sync.Pool{New: func() any { return new(memberReader) }}

// readMembers returns the members of obj, a JSON object in valid UTF-8 without
// surrounding whitespace, in body order: keys unescaped, values as written. It
// reports what it meets first, reading in order: malformed JSON, a key met twice
// at the top level, or something after the object.
func readMembers(obj []byte, path string) ([]Field, error) {
	m := memberReaders.Get().(*memberReader)
	m.buf = *bytes.NewBuffer(obj)
	m.dec.Reset(&m.buf, readOptions...)
	defer func() {
		m.buf = bytes.Buffer{} // keep no reference to obj in the pool
		m.dec.Reset(&m.buf)
		memberReaders.Put(m)
	}()
	malformed := ErrInvalidJSON("The request body is not valid JSON.")
	if _, err := m.dec.ReadToken(); err != nil {
		return nil, malformed
	}
	var (
		fields []Field
		seen   map[string]bool // once there are more than a few members
	)
	for m.dec.PeekKind() == '"' {
		tok, err := m.dec.ReadToken()
		if err != nil {
			return nil, malformed
		}
		key := tok.String()
		p := JoinPath(path, key)
		if seenKey(fields, &seen, key) {
			return nil, ErrInvalid(p, "duplicate_parameter", "Parameter "+p+" appears more than once.")
		}
		start := m.dec.InputOffset()
		if err := m.dec.SkipValue(); err != nil {
			return nil, malformed
		}
		raw := bytes.TrimLeft(obj[start:m.dec.InputOffset()], " \t\r\n:")
		fields = append(fields, Field{Key: key, Path: p, Raw: raw})
	}
	if tok, err := m.dec.ReadToken(); err != nil || tok.Kind() != '}' {
		return nil, malformed
	}
	if _, err := m.dec.ReadToken(); !errors.Is(err, io.EOF) {
		return nil, ErrInvalidJSON("The request body must hold exactly one JSON object.")
	}
	return fields, nil
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
