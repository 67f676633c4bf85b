package stream_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/store"
	"github.com/kassapay/kassa/store/storetest"
	"github.com/kassapay/kassa/stream"
)

// TestHubConcurrentWritersExactlyOnce has many goroutines create invoices at once
// (on PostgreSQL transactions commit out of id order) while the hub follows: every
// event arrives exactly once, in feed order, and nothing else does.
func TestHubConcurrentWritersExactlyOnce(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		f := newFixture(t, cfg, stream.Options{Buffer: 2048, Poll: 5 * time.Millisecond})
		m := f.merchant("one", false)
		sub := f.hub.Subscribe(m.ID, kassa.Devnet, kassa.ScopeMerchant)
		defer sub.Close()
		const writers, each = 16, 25
		var wg sync.WaitGroup
		errs := make(chan error, writers)
		for range writers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range each {
					if _, err := createInvoice(f.ctx, f.db, m, kassa.Devnet); err != nil {
						errs <- err
						return
					}
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
		got := receive(t, sub, writers*each)
		inOrder(t, got)
		seen := map[string]bool{}
		for _, e := range got {
			if seen[e.ID] {
				t.Fatalf("event %s twice", e.ID)
			}
			seen[e.ID] = true
		}
		all, err := f.db.FeedAfter(f.ctx, kassa.FeedPos{}, 10000)
		if err != nil {
			t.Fatal(err)
		}
		if len(all) != len(got) {
			t.Fatalf("hub delivered %d events, the feed holds %d", len(got), len(all))
		}
		for i := range all {
			if all[i].ID != got[i].ID {
				t.Fatalf("event %d: %s, feed has %s", i, got[i].ID, all[i].ID)
			}
		}
		// Nothing more comes once the writers are done and the hub has caught up.
		for end := time.Now().Add(deadline); f.hub.Pos() != all[len(all)-1].Pos; {
			if time.Now().After(end) {
				t.Fatal("hub did not reach the end of the feed")
			}
			time.Sleep(5 * time.Millisecond)
		}
		expectNone(t, "subscriber", sub)
	})
}

// TestResumeWithoutGapOrDuplicate resumes after an event while writers keep going:
// replay then live gives every later event exactly once.
func TestResumeWithoutGapOrDuplicate(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		f := newFixture(t, cfg, stream.Options{Buffer: 4096, Poll: 5 * time.Millisecond})
		m := f.merchant("one", false)
		for range 10 {
			f.invoice(m, kassa.Devnet)
		}
		var seen []*kassa.Event
		var err error
		for end := time.Now().Add(deadline); len(seen) < 10 && err == nil && time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
			seen, err = f.db.MerchantFeedAfter(f.ctx, m.ID, kassa.Devnet, kassa.ScopeMerchant, kassa.FeedPos{}, 100)
		}
		if err != nil || len(seen) != 10 {
			t.Fatalf("%d events, %v", len(seen), err)
		}
		since := seen[3]

		// Writers run before, during and after the subscribe and the replay.
		stop := make(chan struct{})
		var wg sync.WaitGroup
		var mu sync.Mutex
		created := 0
		for range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					select {
					case <-stop:
						return
					default:
					}
					if _, err := createInvoice(f.ctx, f.db, m, kassa.Devnet); err != nil {
						t.Error(err)
						return
					}
					mu.Lock()
					created++
					mu.Unlock()
				}
			}()
		}
		for {
			mu.Lock()
			n := created
			mu.Unlock()
			if n >= 20 {
				break
			}
			time.Sleep(time.Millisecond)
		}

		sub := f.hub.Subscribe(m.ID, kassa.Devnet, kassa.ScopeMerchant)
		defer sub.Close()
		replay := kassa.ResumeAfter(f.db, m.ID, kassa.Devnet, kassa.ScopeMerchant, since.Pos)
		var got []*kassa.Event
		for done := false; !done; {
			var page []*kassa.Event
			page, done, err = replay.Next(f.ctx)
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, page...)
		}
		time.Sleep(20 * time.Millisecond) // let live events pile up behind the replay
		close(stop)
		wg.Wait()

		want, err := f.db.MerchantFeedAfter(f.ctx, m.ID, kassa.Devnet, kassa.ScopeMerchant, since.Pos, 10000)
		if err != nil {
			t.Fatal(err)
		}
		timeout := time.After(deadline)
		for len(got) < len(want) {
			select {
			case e, ok := <-sub.Events():
				if !ok {
					t.Fatalf("subscription closed: %v", sub.Err())
				}
				if replay.Fresh(e) {
					got = append(got, e)
				}
			case <-timeout:
				t.Fatalf("got %d of %d events", len(got), len(want))
			}
		}
		if len(got) != len(want) {
			t.Fatalf("got %d events, want %d", len(got), len(want))
		}
		for i := range want {
			if got[i].ID != want[i].ID {
				t.Fatalf("event %d: %s, want %s", i, got[i].ID, want[i].ID)
			}
		}
		// The replay ends at the last event it returned: that event, seen again
		// live, is not fresh.
		if replay.Fresh(want[len(want)-1]) {
			t.Errorf("the last replayed event %s counts as fresh", want[len(want)-1].ID)
		}
	})
}

func TestHubStopClosesSubscriptions(t *testing.T) {
	db := storetest.Open(t, storetest.SQLiteConfig(t))
	hub := stream.New(db, stream.Options{})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); hub.Run(ctx) }()
	sub := hub.Subscribe(1, kassa.Devnet, kassa.ScopeMerchant)
	cancel()
	<-done
	if _, ok := <-sub.Events(); ok || !errors.Is(sub.Err(), kassa.ErrStreamStopped) {
		t.Fatalf("after stop: Err %v", sub.Err())
	}
	late := hub.Subscribe(1, kassa.Devnet, kassa.ScopeMerchant)
	if _, ok := <-late.Events(); ok || !errors.Is(late.Err(), kassa.ErrStreamStopped) {
		t.Fatalf("subscribe after stop: Err %v", late.Err())
	}
	sub.Close()
	late.Close()
}
