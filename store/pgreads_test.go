package store_test

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/store"
	"github.com/kassapay/kassa/store/storetest"
)

// page is one page of a list: its invoices' ids, whether more exist, its error.
type page struct {
	ids  []string
	more bool
	err  error
}

// listPage lists f's invoices under filter.
func listPage(f *fixture, filter kassa.InvoiceFilter) page {
	invs, more, err := f.db.Invoices(f.ctx, filter)
	p := page{more: more, err: err}
	for _, inv := range invs {
		p.ids = append(p.ids, inv.ID)
	}
	return p
}

// TestPostgresPagesShareRoundTrip: pages of invoices asked for together on
// PostgreSQL, of two merchants with filters, limits and both cursors, are read
// in one round trip, and each is the page it is when read alone: no page gets
// another's rows, the other merchant's above all.
func TestPostgresPagesShareRoundTrip(t *testing.T) {
	f := newFixture(t, storetest.PostgresConfig(t))
	other := f.merchant(t, "other@example.com")
	var mine, theirs []*kassa.Invoice
	for i := range 5 {
		f.clock.Advance(time.Second)
		mine = append(mine, f.invoice(t, f.m, kassa.Millis(1000*(i+1)), func(c *kassa.InvoiceCreate) {
			if i%2 == 0 {
				c.CustomerID = ptr("cus_even")
			}
		}))
		if i < 3 {
			theirs = append(theirs, f.invoice(t, other, 7000, nil))
		}
	}
	filters := []kassa.InvoiceFilter{
		{MerchantID: f.m.ID},
		{MerchantID: other.ID},
		{MerchantID: f.m.ID, Limit: 2},
		{MerchantID: f.m.ID, Limit: 2, StartingAfter: mine[3].ID},
		{MerchantID: f.m.ID, Limit: 2, EndingBefore: mine[0].ID},
		{MerchantID: f.m.ID, CustomerID: ptr("cus_even")},
		{MerchantID: other.ID, StartingAfter: theirs[0].ID},
		{MerchantID: other.ID, StartingAfter: mine[0].ID}, // not theirs: fails before any round trip
	}
	want := make([]page, len(filters))
	for i, filter := range filters {
		want[i] = listPage(f, filter)
	}
	if len(want[0].ids) != 5 || len(want[1].ids) != 3 || len(want[5].ids) != 3 || !want[2].more || want[6].ids != nil {
		t.Fatalf("pages read alone: %+v", want)
	}
	wantErr(t, want[7].err, kassa.KindInvalid, "invalid_cursor")

	release, rounds := store.HoldReads(t, f.db)
	before := rounds()
	got := make([]page, len(filters))
	var wg sync.WaitGroup
	for i, filter := range filters {
		wg.Go(func() { got[i] = listPage(f, filter) })
	}
	release(len(filters) - 1) // the bad cursor queues nothing
	wg.Wait()
	if n := rounds() - before; n != 1 {
		t.Errorf("%d round trips for the pages asked together, want 1", n)
	}
	for i := range filters {
		if !slices.Equal(got[i].ids, want[i].ids) || got[i].more != want[i].more || (got[i].err == nil) != (want[i].err == nil) {
			t.Errorf("page %d read together: %+v, alone: %+v", i, got[i], want[i])
		}
	}
}

// TestPostgresPageFailsAlone: a page whose query fails in a shared round trip
// fails alone; the pages after it in the pipeline, which PostgreSQL skips once one
// fails, are read again and succeed.
func TestPostgresPageFailsAlone(t *testing.T) {
	f := newFixture(t, storetest.PostgresConfig(t))
	a := f.invoice(t, f.m, 1000, nil)
	f.clock.Advance(time.Second)
	b := f.invoice(t, f.m, 2000, nil)
	ids, errs, _ := store.ReadPages(t, f.db, f.m.ID, []string{"", "1/(amount - amount) = 0", "", "amount > 1500"})
	want := [][]string{{b.ID, a.ID}, nil, {b.ID, a.ID}, {b.ID}}
	for i := range want {
		if (errs[i] != nil) != (i == 1) || !slices.Equal(ids[i], want[i]) {
			t.Errorf("page %d: ids %v, error %v; want ids %v and an error only for the failing query", i, ids[i], errs[i], want[i])
		}
	}
}

// TestPostgresPageWithdrawn: a page whose caller goes away before any runner
// took it returns the caller's error and leaves the queue.
func TestPostgresPageWithdrawn(t *testing.T) {
	f := newFixture(t, storetest.PostgresConfig(t))
	f.invoice(t, f.m, 1000, nil)
	release, rounds := store.HoldReads(t, f.db)
	before := rounds()
	ctx, cancel := context.WithCancel(f.ctx)
	done := make(chan error, 1)
	go func() {
		_, _, err := f.db.Invoices(ctx, kassa.InvoiceFilter{MerchantID: f.m.ID})
		done <- err
	}()
	store.WaitReadsQueued(t, f.db, 1)
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("error = %v, want context.Canceled", err)
	}
	release(0)
	if n := rounds() - before; n != 0 {
		t.Errorf("%d round trips for a withdrawn page", n)
	}
	if p := listPage(f, kassa.InvoiceFilter{MerchantID: f.m.ID}); p.err != nil || len(p.ids) != 1 {
		t.Errorf("a page after: %+v", p)
	}
}

// TestPostgresPageTakenOutlivesCaller: a page whose caller goes away after a
// runner took it is still returned: the read is bounded and under way, and a
// caller told "canceled" might retry what it already has. The runner is another
// goroutine (the readers are held until the page is queued), and the page's
// query waits on a lock while the caller's context ends.
func TestPostgresPageTakenOutlivesCaller(t *testing.T) {
	cfg := storetest.PostgresConfig(t)
	f := newFixture(t, cfg)
	inv := f.invoice(t, f.m, 1000, nil)
	raw := storetest.RawDB(t, cfg)
	lock, err := raw.BeginTx(f.ctx, nil)
	must(t, err)
	defer lock.Rollback()
	_, err = lock.Exec("LOCK TABLE invoices IN ACCESS EXCLUSIVE MODE")
	must(t, err)

	release, _ := store.HoldReads(t, f.db)
	ctx, cancel := context.WithCancel(f.ctx)
	type result struct {
		invs []*kassa.Invoice
		err  error
	}
	done := make(chan result, 1)
	go func() {
		invs, _, err := f.db.Invoices(ctx, kassa.InvoiceFilter{MerchantID: f.m.ID})
		done <- result{invs, err}
	}()
	release(1)
	waitUntil(t, "the page's query to wait on the lock", func() bool {
		var n int
		must(t, raw.QueryRow("SELECT count(*) FROM pg_locks WHERE NOT granted AND relation = 'invoices'::regclass").Scan(&n))
		return n > 0
	})
	cancel()
	must(t, lock.Commit())
	r := <-done
	if r.err != nil || len(r.invs) != 1 || r.invs[0].ID != inv.ID {
		t.Fatalf("page taken before its caller went away: %d invoices, error %v; want the one invoice", len(r.invs), r.err)
	}
}

// TestPostgresPageEveryColumn: a page read from PostgreSQL's raw values holds
// every column as the single-invoice read (pgx's scan through database/sql) does,
// with every optional column set and with none.
func TestPostgresPageEveryColumn(t *testing.T) {
	cfg := storetest.PostgresConfig(t)
	f := newFixture(t, cfg)
	bare := f.invoice(t, f.m, 1000, nil)
	f.clock.Advance(time.Second)
	full := f.invoice(t, f.m, 123456, func(c *kassa.InvoiceCreate) {
		c.Description, c.CustomerID, c.CustomerEmail = ptr("Tea, 2 kg — ünïcode"), ptr("cus_1"), ptr("a@example.com")
		c.Metadata = []byte(`{"order":"42"}`)
	})
	_, err := storetest.RawDB(t, cfg).Exec(`UPDATE invoices SET amount_paid = 5, amount_pending = -7,
		payment_return_url = 'https://example.com/back', payment_return_url_enabled = TRUE,
		receiver_override_enabled = TRUE, receiver_override_address = '0x00000000000000000000000000000000000000aa',
		questions = '[{"id":"q1","question":"Size?","type":"text","validation":{}}]',
		form_responses = '[{"question_id":"q1","response":"L"}]',
		payer_wallet_address = '0x00000000000000000000000000000000000000bb', payer_wallet_network = 'ethereum',
		commerce_order_id = 'ord_1', paid_at = 1700000000000001, last_payment_at = -1,
		canceled_at = 9007199254740993, locked_token_id = 4294967296 WHERE id = $1`, full.ID)
	must(t, err)
	invs, _, err := f.db.Invoices(f.ctx, kassa.InvoiceFilter{MerchantID: f.m.ID})
	must(t, err)
	if len(invs) != 2 {
		t.Fatalf("%d invoices listed, want 2", len(invs))
	}
	for i, id := range []string{full.ID, bare.ID} {
		one, err := f.db.Invoice(f.ctx, f.m.ID, id)
		must(t, err)
		if got, want := jsonOf(t, invs[i]), jsonOf(t, one); got != want {
			t.Errorf("listed:\n%s\nread alone:\n%s", got, want)
		}
	}
	if invs[0].LockedTokenID == nil || *invs[0].LockedTokenID != 4294967296 || invs[0].FormResponses == nil || invs[1].Description != nil {
		t.Errorf("optional columns: %s", jsonOf(t, invs))
	}
}
