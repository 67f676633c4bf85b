package store

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// maxDescriptionCandidates caps the invoices an FTS5 look-up hands to a list query
// on SQLite. A piece of text in fewer invoices (of every merchant) is found through
// their rowids; one in more is common enough that the newest-first walk of the
// merchant's covering index meets a page of matches soon, so it is scanned for.
// A variable for the tests of both ways.
var maxDescriptionCandidates = 2000

// likeEscaper makes text literal in a LIKE pattern with ESCAPE '\'.
var likeEscaper = strings.NewReplacer(`\`, `\\`, "%", `\%`, "_", `\_`)

// descriptionLike returns the scan's condition "the description holds lq", lq
// being the query in lower case, with its parameter in w: PostgreSQL's
// LOWER(description) LIKE, which the trigram index invoices_description_trgm
// (migration 0029) serves when lq holds a trigram; SQLite's LIKE, which ignores
// ASCII case only (its LOWER too), so the column is compared as it is.
func (db *DB) descriptionLike(w *where, lq string) string {
	like := w.arg("%" + likeEscaper.Replace(lq) + "%")
	if db.engine == EnginePostgres {
		return "LOWER(description) LIKE " + like + ` ESCAPE '\'`
	}
	return "description LIKE " + like + ` ESCAPE '\'`
}

// descriptionCandidates returns, on SQLite, the rowids of the invoices (of every
// merchant) whose description may hold lq, from the FTS5 trigram index
// invoice_descriptions (migration 0029). Its case folding is Unicode's, so it
// finds every invoice the LIKE would (a superset); each is still checked with
// descriptionLike. ok is false when the index cannot say: on PostgreSQL, for text
// shorter than a trigram, and when more than maxDescriptionCandidates may match.
func (db *DB) descriptionCandidates(ctx context.Context, lq string) (rowids []string, ok bool, err error) {
	if db.engine != EngineSQLite || utf8.RuneCountInString(lq) < 3 || !storable(lq) {
		return nil, false, nil
	}
	rows, err := db.r.QueryContext(ctx, "SELECT rowid FROM invoice_descriptions WHERE invoice_descriptions MATCH $1 LIMIT $2",
		`"`+strings.ReplaceAll(lq, `"`, `""`)+`"`, maxDescriptionCandidates+1)
	if err != nil {
		return nil, false, fmt.Errorf("store: search descriptions: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, false, fmt.Errorf("store: search descriptions: %w", err)
		}
		rowids = append(rowids, strconv.FormatInt(id, 10))
	}
	if err := rows.Err(); err != nil {
		return nil, false, fmt.Errorf("store: search descriptions: %w", err)
	}
	return rowids, len(rowids) <= maxDescriptionCandidates, nil
}

// searchByRowid adds the search of SQLite when descriptionCandidates named the
// candidates: every invoice the search can find is named by rowid (the one of id
// q, the merchant's of customer q, those of ids, the candidates whose description
// holds lq), and the query looks those up and sorts them (NOT INDEXED: SQLite,
// without statistics, would otherwise walk the merchant's index for its order).
func (db *DB) searchByRowid(w *where, merchantID int64, q, lq string, ids, rowids []string) {
	exact := w.arg(q)
	cond := "rowid IN (SELECT rowid FROM invoices WHERE id = " + exact +
		" UNION ALL SELECT rowid FROM invoices WHERE merchant_id = " + w.arg(merchantID) + " AND customer_id = " + exact
	if len(ids) > 0 {
		ph := make([]string, len(ids))
		for i, id := range ids {
			ph[i] = w.arg(id)
		}
		cond += " UNION ALL SELECT rowid FROM invoices WHERE id IN (" + strings.Join(ph, ", ") + ")"
	}
	// The rowids are integers the index gave: written into the statement, each
	// is one look-up (an empty list matches nothing).
	cond += " UNION ALL SELECT rowid FROM invoices WHERE rowid IN (" + strings.Join(rowids, ", ") + ") AND " +
		db.descriptionLike(w, lq) + ")"
	w.conds = append(w.conds, cond)
	w.notIndexed = true
}
