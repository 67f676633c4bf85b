package report

import (
	"bytes"
	"encoding/csv"
	"testing"
)

func TestTableWrite(t *testing.T) {
	tb := &table{header: []string{"id", "note"}}
	tb.add([]string{"a", "=HYPERLINK(\"x\")"}, []byte(`{"order":"A-1","n":7,"tags":["x"]}`))
	tb.add([]string{"b", "-5"}, []byte(`{"order":"+B","extra":"@me"}`))
	tb.add([]string{"c", "plain, with comma"}, nil)
	var buf bytes.Buffer
	if err := tb.write(&buf); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&buf).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	want := [][]string{
		{"id", "note", "metadata.extra", "metadata.n", "metadata.order", "metadata.tags"},
		{"a", "'=HYPERLINK(\"x\")", "", "7", "A-1", `["x"]`},
		{"b", "'-5", "'@me", "", "'+B", ""},
		{"c", "plain, with comma", "", "", "", ""},
	}
	if len(rows) != len(want) {
		t.Fatalf("rows %q", rows)
	}
	for i := range want {
		for j := range want[i] {
			if rows[i][j] != want[i][j] {
				t.Errorf("row %d col %d = %q, want %q", i, j, rows[i][j], want[i][j])
			}
		}
	}
}
