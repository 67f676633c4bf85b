package httpx

import (
	"errors"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/kassapay/kassa"
)

// TestDecodeRequest checks the one path every body decoder takes: strict parsing
// first, then the members in body order, the first unknown or invalid one
// reported, and the empty-body rules.
func TestDecodeRequest(t *testing.T) {
	bad := errors.New("bad value")
	set := func(seen *[]string) FieldFunc {
		return func(f Field) (bool, error) {
			*seen = append(*seen, f.Key)
			switch f.Key {
			case "a", "b":
				return true, nil
			case "bad":
				return true, bad
			}
			return false, nil
		}
	}
	for _, tc := range []struct {
		name  string
		empty EmptyBody
		body  string
		seen  []string // keys handed to set, in order
		code  string   // code of the *kassa.Error, "" for success
		param string
		err   error // a non-kassa error passed through
	}{
		{name: "members in body order", body: `{"b": 1, "a": 2}`, seen: []string{"b", "a"}},
		{name: "empty object", body: ` {} `},
		{name: "unknown", body: `{"a": 1, "zz": 2, "bad": 3}`, seen: []string{"a", "zz"}, code: "unknown_parameter", param: "zz"},
		{name: "invalid before unknown", body: `{"bad": 1, "zz": 2}`, seen: []string{"bad"}, err: bad},
		{name: "parse errors before any member", body: `{"zz": 1, "a": 1, "a": 2}`, code: "duplicate_parameter", param: "a"},
		{name: "malformed", body: `{"a": }`, code: "invalid_json"},
		{name: "not an object", body: `[1]`, code: "invalid_json"},
		{name: "trailing data", body: `{"a": 1} {}`, code: "invalid_json"},
		{name: "required: empty", body: ``, code: "invalid_json"},
		{name: "required: blank", body: " \n", code: "invalid_json"},
		{name: "optional: empty", empty: BodyOptional, body: ``},
		{name: "optional: blank", empty: BodyOptional, body: " \n", code: "invalid_json"},
		{name: "optional: object", empty: BodyOptional, body: `{"a": 1}`, seen: []string{"a"}},
		{name: "optional blank: empty", empty: BodyOptionalBlank, body: ``},
		{name: "optional blank: blank", empty: BodyOptionalBlank, body: " \n\t"},
		{name: "optional blank: unknown", empty: BodyOptionalBlank, body: `{"zz": null}`, seen: []string{"zz"}, code: "unknown_parameter", param: "zz"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var seen []string
			r := httptest.NewRequest("POST", "/", strings.NewReader(tc.body))
			var err error
			if tc.empty == BodyRequired {
				err = DecodeJSON(r, set(&seen))
			} else {
				err = DecodeRequest(r, tc.empty, set(&seen))
			}
			if !slices.Equal(seen, tc.seen) {
				t.Errorf("members seen = %q, want %q", seen, tc.seen)
			}
			switch {
			case tc.err != nil:
				if !errors.Is(err, tc.err) {
					t.Fatalf("err = %v, want %v", err, tc.err)
				}
			case tc.code == "":
				if err != nil {
					t.Fatalf("err = %v, want nil", err)
				}
			default:
				e := kassa.AsError(err)
				if e.Code != tc.code || e.Param != tc.param {
					t.Fatalf("err = %#v, want code %s param %q", err, tc.code, tc.param)
				}
			}
		})
	}
}

// TestDecodeBodyPassesBytes checks that DecodeBody hands the body over unchanged.
func TestDecodeBodyPassesBytes(t *testing.T) {
	r := httptest.NewRequest("POST", "/", strings.NewReader(`{"x": 1}`))
	got, err := DecodeBody(r, func(b []byte) (string, error) { return string(b), nil })
	if err != nil || got != `{"x": 1}` {
		t.Fatalf("DecodeBody = %q, %v", got, err)
	}
}

// TestDecodeObject checks a nested object: a non-object is invalid_type and
// members are named by their path.
func TestDecodeObject(t *testing.T) {
	known := func(f Field) (bool, error) { return f.Key == "a", nil }
	for _, tc := range []struct {
		raw, code, param string
	}{
		{raw: `{"a": 1}`},
		{raw: `{"a": 1, "b": 2}`, code: "unknown_parameter", param: "outer.b"},
		{raw: `[1]`, code: "invalid_type", param: "outer"},
		{raw: `{"a": 1, "a": 2}`, code: "duplicate_parameter", param: "outer.a"},
	} {
		err := DecodeObject(Field{Key: "outer", Path: "outer", Raw: []byte(tc.raw)}, known)
		if tc.code == "" {
			if err != nil {
				t.Errorf("%s: err = %v", tc.raw, err)
			}
			continue
		}
		if e := kassa.AsError(err); e.Code != tc.code || e.Param != tc.param {
			t.Errorf("%s: err = %v, want code %s param %s", tc.raw, err, tc.code, tc.param)
		}
	}
}
