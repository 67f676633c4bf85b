package httpx

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

// splitCases are objects json.Valid accepts, in the shapes bodies take.
var splitCases = []string{
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
}

// TestSplitObjectMatchesDecoder: on valid objects the splitter gives what
// encoding/json's tokenizer gives, members and errors alike.
func TestSplitObjectMatchesDecoder(t *testing.T) {
	for _, path := range []string{"", "outer"} {
		for _, c := range append(splitCases, manyKeys(40, false), manyKeys(40, true)) {
			checkSplit(t, []byte(strings.TrimSpace(c)), path)
		}
	}
}

// manyKeys is an object of n members, the last repeating the first when dup:
// past the few members splitObject walks, it keeps a set.
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

func checkSplit(t *testing.T, obj []byte, path string) {
	t.Helper()
	got, gotErr := splitObject(obj, path)
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

// FuzzSplitObject checks the splitter against the decoder on every valid
// object in valid UTF-8 (what ParseObject hands it) the fuzzer finds, and
// ParseObject on anything.
func FuzzSplitObject(f *testing.F) {
	for _, c := range splitCases {
		f.Add(c)
	}
	f.Add(`{"a":1} {}`)
	f.Add(`{"a":}`)
	f.Fuzz(func(t *testing.T, s string) {
		_, _ = ParseObject([]byte(s), "")
		obj := []byte(strings.TrimSpace(s))
		if len(obj) > 0 && obj[0] == '{' && utf8.Valid(obj) && json.Valid(obj) {
			checkSplit(t, obj, "p")
		}
	})
}

// BenchmarkParseObject reads kassa-load's create body: ParseObject, and the
// tokenizer it used before issue 17 (decodeMembers) for comparison.
func BenchmarkParseObject(b *testing.B) {
	body := []byte(splitCases[3])
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
