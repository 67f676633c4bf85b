package store_test

import (
	"encoding/json"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/store"
	"github.com/kassapay/kassa/store/storetest"
)

// feedAll follows the feed from pos until it has want events, and returns them.
// On PostgreSQL events appear only once every older transaction of the cluster has
// ended, so it polls, up to a generous deadline.
func (f *fixture) feedAll(t *testing.T, pos kassa.FeedPos, want int) []*kassa.Event {
	t.Helper()
	var out []*kassa.Event
	deadline := time.Now().Add(30 * time.Second)
	for len(out) < want {
		es, err := f.db.FeedAfter(f.ctx, pos, 7)
		must(t, err)
		for _, e := range es {
			if !e.Pos.After(pos) {
				t.Fatalf("feed went back: %+v after %+v", e.Pos, pos)
			}
			pos = e.Pos
		}
		out = append(out, es...)
		if len(es) == 0 {
			if time.Now().After(deadline) {
				t.Fatalf("feed has %d events after 30s, want %d", len(out), want)
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	if len(out) != want {
		t.Fatalf("feed has %d events, want %d", len(out), want)
	}
	return out
}

func TestEventFeed(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		f := newFixture(t, cfg)
		other := f.merchant(t, "other@example.com")
		_, err := f.db.EnableMainnet(f.ctx, f.m.ID)
		must(t, err)
		for i := range 3 {
			f.invoice(t, f.m, 1000, nil)
			f.invoice(t, other, 1000+kassa.Millis(i), nil)
		}
		mp := principal(f.m)
		mp.Environment = kassa.Mainnet
		_, _, err = f.db.CreateInvoice(f.ctx, mp, kassa.InvoiceCreate{Amount: 1000}, nil)
		must(t, err)

		feed := f.feedAll(t, kassa.FeedPos{}, 7)
		var merchants []int64
		for _, e := range feed {
			merchants = append(merchants, e.MerchantID)
		}
		m, o := f.m.ID, other.ID
		if fmt.Sprint(merchants) != fmt.Sprint([]int64{m, o, m, o, m, o, m}) {
			t.Fatalf("feed merchants %v", merchants)
		}
		if feed[6].Environment != kassa.Mainnet {
			t.Fatalf("last event %+v, want the mainnet one", feed[6])
		}
		// Paging through the feed one event at a time gives the same order.
		pos := kassa.FeedPos{}
		for i := range feed {
			es, err := f.db.FeedAfter(f.ctx, pos, 1)
			must(t, err)
			if len(es) != 1 || es[0].ID != feed[i].ID || es[0].Pos != feed[i].Pos {
				t.Fatalf("step %d: %+v, want %s", i, es, feed[i].ID)
			}
			pos = es[0].Pos
		}
		if es, err := f.db.FeedAfter(f.ctx, pos, 10); err != nil || len(es) != 0 {
			t.Fatalf("after the last: %d events, %v", len(es), err)
		}

		// The merchant feed: one merchant, environment and scope.
		mf, err := f.db.MerchantFeedAfter(f.ctx, m, kassa.Devnet, kassa.ScopeMerchant, kassa.FeedPos{}, 100)
		must(t, err)
		if want := []string{feed[0].ID, feed[2].ID, feed[4].ID}; fmt.Sprint(eventIDs(mf)) != fmt.Sprint(want) {
			t.Fatalf("merchant feed %v, want %v", eventIDs(mf), want)
		}
		mf, err = f.db.MerchantFeedAfter(f.ctx, m, kassa.Devnet, kassa.ScopeMerchant, feed[2].Pos, 1)
		must(t, err)
		if len(mf) != 1 || mf[0].ID != feed[4].ID {
			t.Fatalf("merchant feed after the second: %v", eventIDs(mf))
		}
		mf, err = f.db.MerchantFeedAfter(f.ctx, m, kassa.Mainnet, kassa.ScopeMerchant, kassa.FeedPos{}, 100)
		must(t, err)
		if len(mf) != 1 || mf[0].ID != feed[6].ID {
			t.Fatalf("mainnet merchant feed %v", eventIDs(mf))
		}
		mf, err = f.db.MerchantFeedAfter(f.ctx, m, kassa.Devnet, kassa.ScopeCommerce, kassa.FeedPos{}, 100)
		must(t, err)
		if len(mf) != 0 {
			t.Fatalf("commerce feed shows %v", eventTypesOf(mf))
		}

		// The head: everything already read is at or before it; only later events
		// come after it.
		head, err := f.db.FeedHead(f.ctx)
		must(t, err)
		for _, e := range feed {
			if e.Pos.After(head) {
				t.Fatalf("event %+v read before the head %+v is after it", e.Pos, head)
			}
		}
		later := []*kassa.Invoice{f.invoice(t, other, 1000, nil), f.invoice(t, f.m, 1000, nil)}
		after := f.feedAll(t, head, 2)
		for i, e := range after {
			var obj struct{ ID string }
			must(t, json.Unmarshal(e.Data, &obj))
			if obj.ID != later[i].ID {
				t.Fatalf("after the head: event %d is about %s, want %s", i, obj.ID, later[i].ID)
			}
		}
		mf, err = f.db.MerchantFeedAfter(f.ctx, m, kassa.Devnet, kassa.ScopeMerchant, head, 100)
		must(t, err)
		if len(mf) != 1 || mf[0].ID != after[1].ID {
			t.Fatalf("merchant feed after the head: %v", eventIDs(mf))
		}
		if head2, err := f.db.FeedHead(f.ctx); err != nil || after[1].Pos.After(head2) {
			t.Fatalf("head %+v did not pass %+v (%v)", head2, after[1].Pos, err)
		}
	})
}

// TestEventFeedConcurrentWriters checks the feed's promise under concurrent commits:
// a reader that always asks for what follows the last position it saw gets every
// event exactly once, in increasing position order. On PostgreSQL seq is taken at
// insert, not at commit, so this rests on the transaction-id horizon.
func TestEventFeedConcurrentWriters(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		f := newFixture(t, cfg)
		const writers, each = 8, 25
		merchants := []*kassa.Merchant{f.m, f.merchant(t, "b@example.com"), f.merchant(t, "c@example.com")}
		head, err := f.db.FeedHead(f.ctx)
		must(t, err)

		var wg sync.WaitGroup
		errs := make(chan error, writers)
		for w := range writers {
			wg.Go(func() {
				for i := range each {
					m := merchants[(w+i)%len(merchants)]
					if _, _, err := f.db.CreateInvoice(f.ctx, principal(m), kassa.InvoiceCreate{Amount: 1000}, nil); err != nil {
						errs <- err
						return
					}
				}
			})
		}
		done := make(chan struct{})
		go func() { wg.Wait(); close(done) }()

		seen := map[string]int{}
		var order []kassa.FeedPos
		pos := head
		deadline := time.Now().Add(30 * time.Second)
		for len(order) < writers*each {
			es, err := f.db.FeedAfter(f.ctx, pos, 16)
			must(t, err)
			for _, e := range es {
				seen[e.ID]++
				if seen[e.ID] > 1 {
					t.Fatalf("event %s read twice", e.ID)
				}
				if !e.Pos.After(pos) {
					t.Fatalf("position %+v after %+v", e.Pos, pos)
				}
				order = append(order, e.Pos)
				pos = e.Pos
			}
			select {
			case err := <-errs:
				t.Fatal(err)
			default:
			}
			if len(es) == 0 {
				select {
				case <-done:
					if time.Now().After(deadline) {
						t.Fatalf("read %d of %d events", len(order), writers*each)
					}
					time.Sleep(2 * time.Millisecond)
				default:
				}
			}
		}
		<-done
		if es, err := f.db.FeedAfter(f.ctx, pos, 16); err != nil || len(es) != 0 {
			t.Fatalf("%d more events after all were read (%v)", len(es), err)
		}
		// Every committed event was read.
		total := 0
		for _, m := range merchants {
			for _, e := range f.merchantEvents(t, m) {
				total++
				if seen[e.ID] != 1 {
					t.Fatalf("event %s read %d times", e.ID, seen[e.ID])
				}
			}
		}
		if total != writers*each || len(seen) != total {
			t.Fatalf("%d events stored, %d read, want %d", total, len(seen), writers*each)
		}
	})
}
