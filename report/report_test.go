package report

import (
	"bytes"
	"encoding/csv"
	"testing"
)

// TestReportWrite: the rows kept aside come back with a metadata column for
// every key any row has (sorted), cells a spreadsheet would evaluate guarded
// with ', except a plain number in a numeric column ("-5.000" stays a number;
// "-5" as text, or "-1+2" there, is guarded).
func TestReportWrite(t *testing.T) {
	rep, err := newReport([]string{"id", "note", "amount_usd"}, map[string]bool{"amount_usd": true})
	if err != nil {
		t.Fatal(err)
	}
	defer rep.Close()
	for _, r := range []struct {
		row  []string
		meta string
	}{
		{[]string{"a", "=HYPERLINK(\"x\")", "-5.000"}, `{"order":"A-1","n":7,"tags":["x"]}`},
		{[]string{"b", "-5", "-1+2"}, `{"order":"+B","extra":"@me"}`},
		{[]string{"c", "plain, with comma\nand a line", "-2500000"}, ""},
		{[]string{"d", "@SUM(A1)", "-.5"}, "null"},
	} {
		if err := rep.add(r.row, []byte(r.meta)); err != nil {
			t.Fatal(err)
		}
	}
	var buf bytes.Buffer
	if _, err := rep.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&buf).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	want := [][]string{
		{"id", "note", "amount_usd", "metadata.extra", "metadata.n", "metadata.order", "metadata.tags"},
		{"a", "'=HYPERLINK(\"x\")", "-5.000", "", "7", "A-1", `["x"]`},
		{"b", "'-5", "'-1+2", "'@me", "", "'+B", ""},
		{"c", "plain, with comma\nand a line", "-2500000", "", "", "", ""},
		{"d", "'@SUM(A1)", "'-.5", "", "", "", ""},
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

func TestPlainNumber(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want bool
	}{
		{"-5.000", true}, {"5", true}, {"-2500000", true}, {"0.000000000000000001", true},
		{"-", false}, {"-.5", false}, {"-5.", false}, {"-5e3", false}, {"-1+2", false}, {"--5", false}, {"-5.0.0", false}, {"", false},
	} {
		if got := plainNumber(tc.in); got != tc.want {
			t.Errorf("plainNumber(%q) = %v, want %v", tc.in, got, tc.want)
		}
	}
}
