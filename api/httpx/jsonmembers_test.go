package httpx

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

// memberCases are objects in the shapes bodies take, valid and not.
var memberCases = []string{
	`{}`,
	` { } `,
	`{"a":1}`,
	`{"amount_usd": 12.5, "description": "load test", "metadata": {"run": "kassa-load"}}`,
	"{\n\t\"a\" :\r\n -1.5e+3 ,\"b\":true,\"c\":false,\"d\":null}",
	`{"s":"with \"quotes\", commas, } and ] inside","n":0}`,
	`{"nested":{"x":[1,{"y":"}"},[]],"z":{}},"after":"ok"}`,
	`{"\u0061":1}`,
	`{"a\\b":"c\\","d":"\\"}`,
	`{"a":1,"a":2}`,
	`{"a":1,"\u0061":2}`,
	`{"arr":[ "a" , [ "b" ] ] , "e":"é ✓"}`,
	`{"inner":{"k":1,"k":2}}`,
	`{"lone":"\ud800"}`,
	`{"a":1} {}`,
	`{"a":1}x`,
	`{"a":}`,
	`{"a":1,}`,
	`{"a":1,"a":2,`,
	`{"a":[1,}, "a":2}`,
	`{1:2}`,
	`{"a" 1}`,
	`{"a":01}`,
	`{"a":"\x"}`,
}

// TestReadMembersMatchesDecoder: jsontext's reading of an object gives what
// encoding/json's tokenizer gives, members and errors alike.
func TestReadMembersMatchesDecoder(t *testing.T) {
	for _, path := range []string{"", "outer"} {
		for _, c := range append(memberCases, manyKeys(40, false), manyKeys(40, true)) {
			checkMembers(t, []byte(strings.TrimSpace(c)), path)
		}
	}
}

// manyKeys is an object of n members, the last repeating the first when dup:
// past the few members readMembers walks, it keeps a set.
func manyKeys(n int, dup bool) string {
	var b strings.Builder
	b.WriteString("{")
	for i := range n {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `"k%d":%d`, i, i)
	}
	if dup {
		b.WriteString(`,"k0":0`)
	}
	return b.String() + "}"
}

func checkMembers(t *testing.T, obj []byte, path string) {
	t.Helper()
	got, gotErr := readMembers(obj, path)
	want, wantErr := decodeMembers(obj, path)
	if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
		t.Fatalf("%s: error %v, the decoder's %v", obj, gotErr, wantErr)
	}
	if len(got) == 0 && len(want) == 0 {
		return
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%s: members %q, the decoder's %q", obj, got, want)
	}
}

// FuzzReadMembers checks readMembers against the decoder on every object in
// valid UTF-8 (what ParseObject hands it) the fuzzer finds, and ParseObject on
// anything.
func FuzzReadMembers(f *testing.F) {
	for _, c := range memberCases {
		f.Add(c)
	}
	f.Fuzz(func(t *testing.T, s string) {
		_, _ = ParseObject([]byte(s), "")
		obj := []byte(strings.TrimSpace(s))
		if len(obj) > 0 && obj[0] == '{' && utf8.Valid(obj) {
			checkMembers(t, obj, "p")
		}
	})
}

// TestParseObjectNotAnObject: a body that is not an object is told apart from
// one that is not JSON as encoding/json tells them apart.
func TestParseObjectNotAnObject(t *testing.T) {
	for _, c := range []string{`[1]`, `[{"a":1,"a":2}]`, `"\ud800"`, `1 2`, `[1]]`, `nul`, `"x`, `12`} {
		want := "The request body must be a JSON object."
		if !json.Valid([]byte(c)) {
			want = "The request body is not valid JSON."
		}
		if _, err := ParseObject([]byte(c), ""); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", c, err, want)
		}
	}
}

// BenchmarkParseObject reads kassa-load's create body: ParseObject, and
// encoding/json's tokenizer (decodeMembers) for comparison.
func BenchmarkParseObject(b *testing.B) {
	body := []byte(memberCases[3])
	b.Run("ParseObject", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := ParseObject(body, ""); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("decoder", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := decodeMembers(body, ""); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// decodeMembers is ParseObject's reading of an object, after the checks of its
// first byte, with encoding/json's tokenizer: the plain way, which readMembers
// must match member for member and error for error.
func decodeMembers(trimmed []byte, path string) ([]Field, error) {
	dec := json.NewDecoder(bytes.NewReader(trimmed))
	dec.UseNumber()
	malformed := ErrInvalidJSON("The request body is not valid JSON.")
	if _, err := dec.Token(); err != nil {
		return nil, malformed
	}
	var fields []Field
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
		p := JoinPath(path, key)
		if seen[key] {
			return nil, ErrInvalid(p, "duplicate_parameter", "Parameter "+p+" appears more than once.")
		}
		seen[key] = true
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, malformed
		}
		fields = append(fields, Field{Key: key, Path: p, Raw: bytes.TrimSpace(raw)})
	}
	if tok, err := dec.Token(); err != nil || tok != json.Delim('}') {
		return nil, malformed
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, ErrInvalidJSON("The request body must hold exactly one JSON object.")
	}
	return fields, nil
}
