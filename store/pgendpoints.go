package store

import (
	"errors"
	"sync"
	"sync/atomic"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/kassapay/kassa"
)

// SQLSTATEs kassa_check raises (migration 0022) in a create batch's transaction.
const (
	codeEndpointsChanged = "KA001" // the batch's webhook endpoints are not those it was built with
	codeKeyLive          = "KA002" // a key of the batch has a live idempotency record
)

// endpointPrint is what of an enabled endpoint its deliveries depend on: which it
// is and which events it wants. A merchant environment's print is its enabled
// endpoints' prints in id order, one a line (empty for none).
const endpointPrint = `id || ' ' || enabled_events`

// enabledEndpointsPrintSQL reads a merchant environment's enabled endpoints, as
// enabledEndpointsSQL, each row with the print of them all, in one snapshot.
const enabledEndpointsPrintSQL = "SELECT " + endpointColumns + ", string_agg(" + endpointPrint +
	", E'\\n') OVER (ORDER BY id ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING)" +
	" FROM webhook_endpoints WHERE merchant_id = $1 AND environment = $2 AND status = $3"

// endpointsUnchangedSQL aborts the transaction (KA001) unless a merchant
// environment's enabled endpoints still have the print $4.
const endpointsUnchangedSQL = "SELECT kassa_check(coalesce((SELECT string_agg(" + endpointPrint +
	", E'\\n' ORDER BY id) FROM webhook_endpoints WHERE merchant_id = $1 AND environment = $2 AND status = $3), '') = $4, '" +
	codeEndpointsChanged + "', 'kassa: webhook endpoints changed since the create writer read them')"

// endpointSet is a merchant environment's enabled endpoints (without secrets) and
// their print, as read in one statement.
type endpointSet struct {
	eps   []*kassa.WebhookEndpoint
	print string
}

// endpointMemo keeps the endpoint sets PostgreSQL's create writer last read, so
// that a batch of creates can be sent with its deliveries and COMMIT in one round
// trip: the batch's transaction first checks that each set's print is unchanged
// (endpointsUnchangedSQL), else it rolls back and the writer reads the endpoints
// again, in two round trips. Other instances may change endpoints at any time:
// what the memo holds is a guess the transaction checks, never trusted as is. A
// failed check costs more than the read it saves (pgx forgets the prepared
// statements of a batch that met an error, so the retry prepares them again);
// endpoints change rarely beside creates.
type endpointMemo struct {
	mu   sync.Mutex
	sets map[endpointScope]endpointSet
	// oneTrip counts the batches sent in one round trip and stale those whose
	// check failed; tests read them.
	oneTrip, stale atomic.Int64
}

// lookup returns the sets of scopes, in order, and whether every one is known.
func (m *endpointMemo) lookup(scopes []endpointScope) ([]endpointSet, bool) {
	if m == nil {
		return nil, false
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	sets := make([]endpointSet, len(scopes))
	for i, s := range scopes {
		set, ok := m.sets[s]
		if !ok {
			return nil, false
		}
		sets[i] = set
	}
	return sets, true
}

// put remembers the set just read for s; past maxCachedEndpointSets the memo
// starts again.
func (m *endpointMemo) put(s endpointScope, set endpointSet) {
	if m == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.sets == nil || len(m.sets) >= maxCachedEndpointSets {
		m.sets = map[endpointScope]endpointSet{}
	}
	m.sets[s] = set
}

// forget drops what the memo holds for scopes.
func (m *endpointMemo) forget(scopes []endpointScope) {
	if m == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, s := range scopes {
		delete(m.sets, s)
	}
}

// readEndpointSet reads one scope's result of enabledEndpointsPrintSQL.
func readEndpointSet(br pgx.BatchResults) (endpointSet, error) {
	var set endpointSet
	rows, err := br.Query()
	if err != nil {
		return set, err
	}
	defer rows.Close()
	for rows.Next() {
		ep, err := scanEndpoint(printScanner{rows, &set.print}, nil)
		if err != nil {
			return set, err
		}
		set.eps = append(set.eps, ep)
	}
	return set, rows.Err()
}

// printScanner scans a row of enabledEndpointsPrintSQL: the endpoint's columns
// into the destinations given, the print into print.
type printScanner struct {
	rows  pgx.Rows
	print *string
}

func (s printScanner) Scan(dest ...any) error { return s.rows.Scan(append(dest, s.print)...) }

// hasCode reports whether err is a PostgreSQL error with SQLSTATE code.
func hasCode(err error, code string) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == code
}
