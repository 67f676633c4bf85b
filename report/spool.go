package report

import (
	"bufio"
	"encoding/csv"
	"fmt"
	"io"
	"os"
	"sort"
)

// Report is a report run to its end: its rows wait in a temporary file, so
// memory does not grow with them, until WriteTo writes the CSV. The header is
// known only then: the metadata.<key> columns are every key any row's invoice
// has, sorted, after the fixed columns.
type Report struct {
	header  []string // the fixed columns
	numeric []bool   // by column: Kassa writes a number there (safe)
	file    *os.File
	rows    *csv.Writer
	keys    map[string]bool
}

// newReport starts a report with the fixed columns header, of which those named
// in numbers hold numbers. Its rows go to a temporary file, unlinked at once
// where the system allows it (a crash leaves nothing behind).
func newReport(header []string, numbers map[string]bool) (*Report, error) {
	f, err := os.CreateTemp("", "kassa-report-*.csv")
	if err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	_ = os.Remove(f.Name())
	r := &Report{header: header, numeric: make([]bool, len(header)), file: f, keys: map[string]bool{}}
	for i, h := range header {
		r.numeric[i] = numbers[h]
	}
	r.rows = csv.NewWriter(f) // buffered by csv itself
	return r, nil
}

// add keeps a row of the fixed columns and its invoice's metadata (JSON), as
// the metadata's text in a last cell.
func (r *Report) add(row []string, metadata []byte) error {
	for k := range flatten(metadata) {
		r.keys[k] = true
	}
	return r.rows.Write(append(row, string(metadata)))
}

// WriteTo writes the report as CSV: the header, then every row with its
// metadata cells, each cell guarded against formula injection (safe).
func (r *Report) WriteTo(w io.Writer) (int64, error) {
	r.rows.Flush()
	if err := r.rows.Error(); err != nil {
		return 0, fmt.Errorf("report: %w", err)
	}
	if _, err := r.file.Seek(0, io.SeekStart); err != nil {
		return 0, fmt.Errorf("report: %w", err)
	}
	names := make([]string, 0, len(r.keys))
	for k := range r.keys {
		names = append(names, k)
	}
	sort.Strings(names)
	cw := &countWriter{w: w}
	out := csv.NewWriter(cw)
	header := append([]string{}, r.header...)
	for _, k := range names {
		header = append(header, "metadata."+k)
	}
	if err := out.Write(safe(header, nil)); err != nil {
		return cw.n, err
	}
	in := csv.NewReader(bufio.NewReader(r.file))
	in.ReuseRecord = true
	in.FieldsPerRecord = len(r.header) + 1
	row := make([]string, 0, len(header))
	for {
		rec, err := in.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return cw.n, fmt.Errorf("report: %w", err)
		}
		meta := flatten([]byte(rec[len(r.header)]))
		row = append(row[:0], rec[:len(r.header)]...)
		for _, k := range names {
			row = append(row, meta[k])
		}
		if err := out.Write(safe(row, r.numeric)); err != nil {
			return cw.n, err
		}
	}
	out.Flush()
	return cw.n, out.Error()
}

// Close removes the report's rows.
func (r *Report) Close() error {
	name := r.file.Name()
	err := r.file.Close()
	_ = os.Remove(name) // where it could not be unlinked while open
	return err
}

// countWriter counts what it writes, for WriteTo.
type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}
