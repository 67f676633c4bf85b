package httpx

import (
	"encoding/json"
	"testing"
	"unicode/utf8"
)

// canonCases are JSON values whose canonical form has something to get right.
var canonCases = []string{
	`{"amount_usd": 12.5, "description": "load test", "metadata": {"run": "kassa-load"}}`,
	`{"b":1,"a":2,"c":{"z":[3,{"y":null,"x":true}],"a":"s"}}`,
	`{"a":1,"a":2,"b":0,"a":3}`,
	`{"\u0062":1,"a":"\u0041\n\t\"<&>\u2028é"}`,
	`{"k":"<b>","é":"x","a\\b":"c"}`,
	`[ 1 , 2.50 , -0 , 1e3 , "x" , [ ] , { } ]`,
	` "just a string" `,
	`12.0`,
	`{"lone":"\ud800","pair":"\ud83d\ude00"}`,
	`{}`,
	`{"": 1, " ": 2}`,
}

// TestAppendCanonicalMatchesEncodingJSON: the canonical form is encoding/json's
// decode and marshal, byte for byte.
func TestAppendCanonicalMatchesEncodingJSON(t *testing.T) {
	for _, c := range canonCases {
		checkCanonical(t, []byte(c))
	}
}

func checkCanonical(t *testing.T, body []byte) {
	t.Helper()
	want, ok := canonicalJSON(body)
	got, err := appendCanonical(nil, body)
	if !ok || err != nil || string(got) != string(want) {
		t.Fatalf("%s: canonical %s (%v), encoding/json's %s (%v)", body, got, err, want, ok)
	}
}

// FuzzAppendCanonical checks the canonical form against encoding/json's on
// every valid value in valid UTF-8 the fuzzer finds.
func FuzzAppendCanonical(f *testing.F) {
	for _, c := range canonCases {
		f.Add(c)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if b := []byte(s); utf8.Valid(b) && json.Valid(b) {
			checkCanonical(t, b)
		}
	})
}

// BenchmarkFingerprint: a create's idempotency fingerprint, and the decode and
// marshal it used before issue 17.
func BenchmarkFingerprint(b *testing.B) {
	body := []byte(canonCases[0])
	b.Run("fingerprint", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			fingerprint("POST", "/api/v1/invoices", body)
		}
	})
	b.Run("canonicalJSON", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			canonicalJSON(body)
		}
	})
}
