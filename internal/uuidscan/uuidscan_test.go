package uuidscan

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/kassapay/kassa"
)

// found returns the UUIDs Each reports in b.
func found(t *testing.T, b []byte) []string {
	t.Helper()
	var ids []string
	Each(b, func(id []byte) { ids = append(ids, string(id)) })
	return ids
}

func TestEach(t *testing.T) {
	inv := "0193a5b2-7c1d-7e2f-8a3b-4c5d6e7f8091"
	other := "0193A5B2-7C1D-7E2F-8A3B-4C5D6E7F8092"
	for _, tc := range []struct {
		name string
		in   string
		want []string
	}{
		{"empty", "", nil},
		{"alone", inv, []string{inv}},
		{"in an event", `{"id":"` + inv + `","payment_url":"https://x/pay/` + inv + `?session=s"}`, []string{inv, inv}},
		{"upper case", "x" + other + "y", []string{other}},
		{"in longer hex", "ffff" + inv + "ffff", []string{inv}},
		{"two adjacent", inv + other, []string{inv, other}},
		{"a dash missing", strings.Replace(inv, "-", "0", 1), nil},
		{"a dash moved", inv[:12] + "-" + inv[13:], nil},
		{"not hex", strings.Replace(inv, "a", "g", 1), nil},
		{"cut short", inv[:Len-1], nil},
		{"evt id (no dashes)", `"evt_0193a5b27c1d7e2f8a3b4c5d6e7f8091"`, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := found(t, []byte(tc.in)); !slices.Equal(got, tc.want) {
				t.Errorf("Each(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

// TestEachAgainstContains checks Each against the plain way on random texts made of
// UUID fragments, hex, dashes and JSON: for every UUID-shaped id, Contains(b, id)
// holds exactly when Each reports id.
func TestEachAgainstContains(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	ids := make([]string, 20)
	for i := range ids {
		ids[i] = kassa.NewUUID()
		if i%5 == 0 {
			ids[i] = strings.ToUpper(ids[i])
		}
	}
	pieces := []string{"-", "a", "0", "f", `"`, `{"id":"`, `","invoice_id":"`, "/pay/", "?session=", "x", " "}
	for round := range 5000 {
		var b bytes.Buffer
		for range r.IntN(12) {
			switch r.IntN(4) {
			case 0:
				b.WriteString(ids[r.IntN(len(ids))])
			case 1:
				id := ids[r.IntN(len(ids))]
				b.WriteString(id[r.IntN(Len):])
			case 2:
				id := ids[r.IntN(len(ids))]
				b.WriteString(id[:r.IntN(Len)])
			default:
				b.WriteString(pieces[r.IntN(len(pieces))])
			}
		}
		reported := map[string]bool{}
		for _, id := range found(t, b.Bytes()) {
			if !kassa.ValidUUID(id) {
				t.Fatalf("round %d: Each reported %q, not a UUID, in %q", round, id, b.Bytes())
			}
			if !bytes.Contains(b.Bytes(), []byte(id)) {
				t.Fatalf("round %d: Each reported %q, not in %q", round, id, b.Bytes())
			}
			reported[id] = true
		}
		for _, id := range ids {
			if bytes.Contains(b.Bytes(), []byte(id)) != reported[id] {
				t.Fatalf("round %d: Contains(%q) = %v, Each reported it: %v; text %q",
					round, id, !reported[id], reported[id], b.Bytes())
			}
		}
	}
}
