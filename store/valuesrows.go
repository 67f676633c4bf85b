package store

import (
	"strconv"
	"strings"
	"sync"
)

// multiRow turns a one-row INSERT into one that inserts rows rows, cached per
// statement and row count. The one-row statement has a single VALUES (...) tuple
// whose placeholders are $1..$width, the row's own arguments; the placeholders
// after the tuple (e.g. in ON CONFLICT ... WHERE) are shared by the rows, must be
// numbered from $width+1 on, and are renumbered to follow the rows. rowArgs lays
// out the arguments.
func multiRow(single string, rows int) (q string, width int) {
	k := multiRowKey{single, rows}
	if v, ok := multiRows.Load(k); ok {
		m := v.(multiRowSQL)
		return m.q, m.width
	}
	m := buildMultiRow(single, rows)
	multiRows.Store(k, m)
	return m.q, m.width
}

// multiRowKey is a statement of multiRow's cache: the one-row text and the rows.
type multiRowKey struct {
	q    string
	rows int
}

// multiRowSQL is a cached multiRow statement and its tuple's width.
type multiRowSQL struct {
	q     string
	width int
}

// multiRows caches multiRow's statements: four statements times the row counts
// seen, at most maxPGBatch (deliveries: maxPGBatch times an event's endpoints).
var multiRows sync.Map

// buildMultiRow makes multiRow's statement.
func buildMultiRow(single string, rows int) multiRowSQL {
	i := strings.Index(single, "VALUES (")
	if i < 0 {
		panic("store: multiRow: no VALUES tuple in " + single)
	}
	open := i + len("VALUES ")
	end := tupleEnd(single, open)
	tuple, suffix := single[open:end], single[end:]
	width := 0
	renumber(tuple, func(n int) int { width = max(width, n); return n })
	var b strings.Builder
	b.WriteString(single[:open])
	for r := 0; r < rows; r++ {
		if r > 0 {
			b.WriteString(", ")
		}
		b.WriteString(renumber(tuple, func(n int) int { return n + r*width }))
	}
	b.WriteString(renumber(suffix, func(n int) int { return n - width + rows*width }))
	return multiRowSQL{b.String(), width}
}

// tupleEnd returns the index just past the parenthesis that closes the one
// opening at s[open], skipping quoted text.
func tupleEnd(s string, open int) int {
	depth, quoted := 0, false
	for i := open; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\'':
			quoted = !quoted
		case quoted:
		case c == '(':
			depth++
		case c == ')':
			if depth--; depth == 0 {
				return i + 1
			}
		}
	}
	panic("store: multiRow: unclosed tuple in " + s)
}

// renumber rewrites every placeholder $n of s, outside quoted text, as $f(n).
func renumber(s string, f func(int) int) string {
	var b strings.Builder
	quoted := false
	for i := 0; i < len(s); i++ {
		if s[i] == '\'' {
			quoted = !quoted
		}
		if s[i] != '$' || quoted {
			b.WriteByte(s[i])
			continue
		}
		j := i + 1
		for j < len(s) && s[j] >= '0' && s[j] <= '9' {
			j++
		}
		n, err := strconv.Atoi(s[i+1 : j])
		if err != nil {
			b.WriteByte('$')
			continue
		}
		b.WriteByte('$')
		b.WriteString(strconv.Itoa(f(n)))
		i = j - 1
	}
	return b.String()
}

// rowArgs lays out the arguments of a multiRow statement: each row's first width
// arguments in order, then the shared ones after the tuple, taken from the first
// row.
func rowArgs(width int, rows [][]any) []any {
	args := make([]any, 0, width*len(rows)+len(rows[0])-width)
	for _, r := range rows {
		args = append(args, r[:width]...)
	}
	return append(args, rows[0][width:]...)
}
