package store

import "strings"

// likeEscaper makes text literal in a LIKE pattern with ESCAPE '\'.
var likeEscaper = strings.NewReplacer(`\`, `\\`, "%", `\%`, "_", `\_`)

// descriptionLike returns the search's condition "the description holds lq", lq
// being the query in lower case, with its parameter in w. PostgreSQL:
// LOWER(description) LIKE, which the trigram index invoices_description_trgm
// (migration 0029) serves when lq holds a trigram (GIN rechecks each row, so the
// answers are the scan's). SQLite: LIKE on the column as it is, since SQLite's
// LIKE ignores ASCII case (its LOWER folds only ASCII too); a scan of the
// merchant's covering index.
func (db *DB) descriptionLike(w *where, lq string) string {
	like := w.arg("%" + likeEscaper.Replace(lq) + "%")
	if db.engine == EnginePostgres {
		return "LOWER(description) LIKE " + like + ` ESCAPE '\'`
	}
	return "description LIKE " + like + ` ESCAPE '\'`
}
