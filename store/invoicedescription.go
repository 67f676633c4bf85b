package store

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"strings"
)

// likeEscaper makes text literal in a LIKE pattern with ESCAPE '\'.
var likeEscaper = strings.NewReplacer(`\`, `\\`, "%", `\%`, "_", `\_`)

// descriptionLike returns the search's condition "the description holds lq", lq
// being the query in lower case, with its parameter in w. PostgreSQL:
// LOWER(description) LIKE, which the trigram index invoices_description_trgm
// (migration 0029) serves when lq holds a trigram (GIN rechecks each row, so the
// answers are the scan's). SQLite: LIKE on the column as it is, since SQLite's
// LIKE ignores ASCII case (its LOWER folds only ASCII too); a scan of the
// merchant's covering index, or a check of the candidates descriptionCandidates
// found.
func (db *DB) descriptionLike(w *where, lq string) string {
	like := w.arg("%" + likeEscaper.Replace(lq) + "%")
	if db.engine == EnginePostgres {
		return "LOWER(description) LIKE " + like + ` ESCAPE '\'`
	}
	return "description LIKE " + like + ` ESCAPE '\'`
}

// Limits of SQLite's description index (migration 0032). Variables for the tests
// of every way.
var (
	// maxDescriptionCandidates caps the invoices (of every merchant) an index
	// look-up hands to a list: text in more is common enough that the newest-first
	// walk of the merchant's covering index meets a page of matches soon.
	maxDescriptionCandidates = 2000
	// maxUnindexedTail caps the invoices not yet indexed that a search scans by
	// rowid beside the index; past it (the index is being built after an upgrade)
	// the search scans the merchant's invoices as without an index.
	maxUnindexedTail int64 = 100_000
)

// descriptionCandidates returns, on SQLite, the rowids of the invoices (of every
// merchant) the index invoice_descriptions says may hold the text lq, the query
// in lower case (every one of its trigrams; the index folds Unicode case, so it
// finds every invoice the scan's LIKE of lq would), and through, the rowid the index is complete up to: the
// invoices after it are to be scanned. ok is false when the index cannot say: on
// PostgreSQL, for text shorter than a trigram, past maxDescriptionCandidates, or
// with more than maxUnindexedTail invoices not yet indexed.
func (db *DB) descriptionCandidates(ctx context.Context, lq string) (rowids []string, through int64, ok bool, err error) {
	match, ok := trigramMatch(lq)
	if db.engine != EngineSQLite || !ok {
		return nil, 0, false, nil
	}
	through, last, err := indexedThrough(ctx, db.r)
	if err != nil {
		return nil, 0, false, fmt.Errorf("store: search descriptions: %w", err)
	}
	if last-through > maxUnindexedTail {
		return nil, 0, false, nil
	}
	rows, err := db.r.QueryContext(ctx, "SELECT rowid FROM invoice_descriptions WHERE invoice_descriptions MATCH $1 LIMIT $2",
		match, maxDescriptionCandidates+1)
	if err != nil {
		return nil, 0, false, fmt.Errorf("store: search descriptions: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, 0, false, fmt.Errorf("store: search descriptions: %w", err)
		}
		rowids = append(rowids, strconv.FormatInt(id, 10))
	}
	if err := rows.Err(); err != nil {
		return nil, 0, false, fmt.Errorf("store: search descriptions: %w", err)
	}
	return rowids, through, len(rowids) <= maxDescriptionCandidates, nil
}

// maxTrigrams caps the trigrams a look-up asks for: each reads its list of
// invoices, and a few spread over the text already narrow the candidates that
// the LIKE checks.
const maxTrigrams = 16

// trigramMatch is the FTS5 query for the invoices whose description may hold q:
// distinct runs of three characters of q (all of them, or maxTrigrams spread
// over a longer text), quoted, joined by AND (the index keeps no positions to ask
// for a phrase). ok is false for text shorter than three characters.
func trigramMatch(q string) (match string, ok bool) {
	rs := []rune(q)
	if len(rs) < 3 {
		return "", false
	}
	n := len(rs) - 2 // trigrams
	seen := make(map[string]bool, min(n, maxTrigrams))
	var b strings.Builder
	for k := range min(n, maxTrigrams) {
		i := k * n / min(n, maxTrigrams) // every one, or maxTrigrams spread from the first
		t := string(rs[i : i+3])
		if seen[t] {
			continue
		}
		seen[t] = true
		if b.Len() > 0 {
			b.WriteString(" AND ")
		}
		b.WriteString(`"` + strings.ReplaceAll(t, `"`, `""`) + `"`)
	}
	return b.String(), true
}

// searchByRowid adds SQLite's search when descriptionCandidates answered: every
// invoice the search can find is named by rowid (the one of id q, the merchant's
// of customer q, those of ids, the candidates whose description holds lq, and
// the merchant's invoices after through whose description holds it), and the
// query looks those up and sorts them (NOT INDEXED: SQLite, without statistics,
// would otherwise walk the merchant's index for its order).
func (db *DB) searchByRowid(w *where, merchantID int64, q, lq string, ids, rowids []string, through int64) {
	exact := w.arg(q)
	m := w.arg(merchantID)
	cond := "invoices.rowid IN (SELECT rowid FROM invoices WHERE id = " + exact +
		" UNION ALL SELECT rowid FROM invoices WHERE merchant_id = " + m + " AND customer_id = " + exact
	if len(ids) > 0 {
		ph := make([]string, len(ids))
		for i, id := range ids {
			ph[i] = w.arg(id)
		}
		cond += " UNION ALL SELECT rowid FROM invoices WHERE id IN (" + strings.Join(ph, ", ") + ")"
	}
	like := db.descriptionLike(w, lq)
	if len(rowids) > 0 {
		// The rowids are integers the index gave: written into the statement, each
		// is one look-up (SQLite plans an empty list as a scan).
		cond += " UNION ALL SELECT rowid FROM invoices WHERE rowid IN (" + strings.Join(rowids, ", ") + ") AND " + like
	}
	cond += " UNION ALL SELECT rowid FROM invoices NOT INDEXED WHERE rowid > " + w.arg(through) +
		" AND merchant_id = " + m + " AND " + like + ")"
	w.conds = append(w.conds, cond)
	w.notIndexed = true
}

// IndexDescriptions indexes the descriptions of at most limit invoices past the
// ones SQLite's description index holds, by rowid, and returns how many invoices
// it passed (fewer than limit: it has caught up). A round of the worker
// (worker.DescriptionIndex); nothing to do on PostgreSQL, whose index is kept
// with every write.
func (db *DB) IndexDescriptions(ctx context.Context, limit int) (int, error) {
	if db.engine != EngineSQLite {
		return 0, nil
	}
	var passed int64
	err := db.write(ctx, func(q queryer) error {
		through, last, err := indexedThrough(ctx, q)
		if err != nil {
			return err
		}
		to := min(last, through+int64(limit))
		if to <= through {
			return nil
		}
		if _, err := q.ExecContext(ctx, `INSERT INTO invoice_descriptions (rowid, description)
			SELECT rowid, description FROM invoices WHERE rowid > $1 AND rowid <= $2 AND description IS NOT NULL`,
			through, to); err != nil {
			return err
		}
		if _, err := q.ExecContext(ctx, "UPDATE invoice_descriptions_indexed SET through = $1", to); err != nil {
			return err
		}
		passed = to - through
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("store: index descriptions: %w", err)
	}
	return int(passed), nil
}

// UnindexedDescriptions returns how many invoices, by rowid, SQLite's description
// index has not reached yet (0 on PostgreSQL).
func (db *DB) UnindexedDescriptions(ctx context.Context) (int64, error) {
	if db.engine != EngineSQLite {
		return 0, nil
	}
	through, last, err := indexedThrough(ctx, db.r)
	if err != nil {
		return 0, fmt.Errorf("store: unindexed descriptions: %w", err)
	}
	return max(0, last-through), nil
}

// indexedThrough reads the rowid SQLite's description index is complete up to
// and the largest rowid of invoices (0 without invoices).
func indexedThrough(ctx context.Context, q queryer) (through, last int64, err error) {
	var l sql.NullInt64
	err = q.QueryRowContext(ctx, "SELECT through, (SELECT MAX(rowid) FROM invoices) FROM invoice_descriptions_indexed").
		Scan(&through, &l)
	return through, l.Int64, err
}
