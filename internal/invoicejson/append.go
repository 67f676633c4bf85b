package invoicejson

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/kassapay/kassa"
)

// The append helpers below write JSON exactly as kassa.MarshalJSON (encoding/json with
// SetEscapeHTML(false)) does, so hand-written encoders stay byte-identical to the
// reflection-based ones they replace.

const jsonHex = "0123456789abcdef"

// AppendString appends s as a JSON string, escaped as kassa.MarshalJSON escapes it:
// '"', '\\' and control characters escaped (\n, \r, \t, \b, \f by name), U+2028 and
// U+2029 as \u2028 and \u2029, invalid UTF-8 replaced by \ufffd; '<', '>' and '&'
// kept as they are.
func AppendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '\\', '"':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', jsonHex[c>>4], jsonHex[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', jsonHex[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// appendOptString appends *s as a JSON string, or null for nil.
func appendOptString(b []byte, s *string) []byte {
	if s == nil {
		return append(b, "null"...)
	}
	return AppendString(b, *s)
}

// appendBool appends true or false.
func appendBool(b []byte, v bool) []byte {
	if v {
		return append(b, "true"...)
	}
	return append(b, "false"...)
}

// appendDecimal appends m.Decimal() ("12.340"), which never needs escaping.
func appendDecimal(b []byte, m kassa.Millis) []byte {
	u := uint64(m)
	if m < 0 {
		b = append(b, '-')
		u = uint64(-m)
	}
	b = strconv.AppendUint(b, u/1000, 10)
	f := u % 1000
	return append(b, '.', byte('0'+f/100), byte('0'+f/10%10), byte('0'+f%10))
}

// appendTime appends kassa.FormatTime(t) as a JSON string. Its text is digits and the
// layout's own characters, which never need escaping.
func appendTime(b []byte, t time.Time) []byte {
	t = t.UTC()
	year, month, day := t.Date()
	if year < 0 || year > 9999 {
		b = append(b, '"')
		b = t.AppendFormat(b, kassa.TimeLayout)
		return append(b, '"')
	}
	hour, minute, sec := t.Clock()
	ms := t.Nanosecond() / 1e6
	return append(b, '"',
		byte('0'+year/1000), byte('0'+year/100%10), byte('0'+year/10%10), byte('0'+year%10), '-',
		byte('0'+int(month)/10), byte('0'+int(month)%10), '-', byte('0'+day/10), byte('0'+day%10), 'T',
		byte('0'+hour/10), byte('0'+hour%10), ':', byte('0'+minute/10), byte('0'+minute%10), ':',
		byte('0'+sec/10), byte('0'+sec%10), '.', byte('0'+ms/100), byte('0'+ms/10%10), byte('0'+ms%10), 'Z', '"')
}

// appendOptTime appends kassa.FormatOptTime(t): the time as a JSON string, or null.
func appendOptTime(b []byte, t *time.Time) []byte {
	if t == nil {
		return append(b, "null"...)
	}
	return appendTime(b, *t)
}

// rawMessageType is the type encoding/json names when a json.RawMessage fails.
var rawMessageType = reflect.TypeFor[json.RawMessage]()

// appendCompactJSON appends the raw JSON value v as encoding/json renders a
// json.RawMessage under kassa.MarshalJSON: validated, whitespace outside strings removed,
// every other byte as it was. Invalid JSON gives the error encoding/json gives.
func appendCompactJSON(b []byte, v []byte) ([]byte, error) {
	if !json.Valid(v) {
		var buf bytes.Buffer
		err := json.Compact(&buf, v)
		return b, &json.MarshalerError{Type: rawMessageType, Err: err}
	}
	start := 0
	inString, escaped := false, false
	for i, c := range v {
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			b = append(b, v[start:i]...)
			start = i + 1
		}
	}
	return append(b, v[start:]...), nil
}
