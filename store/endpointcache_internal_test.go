package store

import (
	"context"
	"errors"
	"testing"

	"github.com/kassapay/kassa"
)

// TestEndpointCacheStatements: which of the writer's statements empty the cache.
func TestEndpointCacheStatements(t *testing.T) {
	for _, tc := range []struct {
		query   string
		empties bool
	}{
		{"SELECT id FROM webhook_endpoints WHERE merchant_id = $1", false},
		{"  (SELECT 1 FROM webhook_endpoints)", false},
		{"INSERT INTO webhook_endpoints (id) VALUES ($1)", true},
		{"UPDATE webhook_endpoints SET status = $1", true},
		{"DELETE FROM webhook_endpoints WHERE id = $1", true},
		{"update webhook_endpoints set secret = $1", true},
		{"INSERT INTO webhook_deliveries (id) VALUES ($1)", false},
		{"INSERT INTO invoices (id) VALUES ($1)", false},
	} {
		c := &endpointCache{}
		c.put(1, kassa.Devnet, nil)
		c.statement(tc.query)
		if _, ok := c.get(1, kassa.Devnet); ok == tc.empties {
			t.Errorf("%q: emptied %v, want %v", tc.query, !ok, tc.empties)
		}
	}
	var none *endpointCache // PostgreSQL's: caches nothing
	none.put(1, kassa.Devnet, nil)
	if _, ok := none.get(1, kassa.Devnet); ok {
		t.Error("a nil cache holds endpoints")
	}
}

// TestEndpointCacheRollback: a job that fails, or a group that cannot commit,
// leaves the cache empty, whatever was read or written before.
func TestEndpointCacheRollback(t *testing.T) {
	g := newTestGroup(t)
	g.p.endpoints = &endpointCache{}
	fill := func(q txq) { q.p.endpoints.put(1, kassa.Devnet, []*kassa.WebhookEndpoint{{ID: "we_1"}}) }
	cached := func() bool { _, ok := g.p.endpoints.get(1, kassa.Devnet); return ok }

	if _, err := g.do(context.Background(), nil, nil, func(q txq) error { fill(q); return nil }); err != nil {
		t.Fatal(err)
	}
	if !cached() {
		t.Fatal("a committed read is not cached")
	}
	failed := errors.New("job failed")
	if _, err := g.do(context.Background(), nil, nil, func(q txq) error { fill(q); return failed }); !errors.Is(err, failed) {
		t.Fatalf("err %v, want the job's", err)
	}
	if cached() {
		t.Error("the cache holds endpoints after a job rolled back")
	}
	// A group of two whose second job releases its own savepoint: the group
	// cannot release it, and rolls back.
	told := g.announce()
	first := make(chan error, 1)
	go func() {
		_, err := g.do(context.Background(), nil, nil, func(q txq) error { fill(q); return nil })
		first <- err
	}()
	waitFor(t, "the writer to hold the group open", func() bool { return g.waiting.Load() == 1 })
	if _, err := g.do(context.Background(), nil, told, func(q txq) error {
		_, err := q.ExecContext(context.Background(), "RELEASE job")
		return err
	}); err == nil {
		t.Fatal("a group without its savepoint committed")
	}
	if err := <-first; err == nil {
		t.Fatal("the first job of a rolled back group succeeded")
	}
	if cached() {
		t.Error("the cache holds endpoints after the group failed")
	}
}
