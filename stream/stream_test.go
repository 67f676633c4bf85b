package stream_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"kassa"
	"kassa/store"
	"kassa/store/storetest"
	"kassa/stream"
)

// deadline bounds every wait; tests never assert on timing.
const deadline = 30 * time.Second

type fixture struct {
	t   *testing.T
	db  *store.DB
	hub *stream.Hub
	ctx context.Context
}

// newFixture opens a store and runs a hub over it until the test ends.
func newFixture(t *testing.T, cfg store.Config, opts stream.Options) *fixture {
	t.Helper()
	db := storetest.Open(t, cfg)
	if opts.Wake == nil {
		opts.Wake = db.Commits()
	}
	if opts.Poll == 0 {
		opts.Poll = 20 * time.Millisecond
	}
	hub := stream.New(db, opts)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); hub.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	return &fixture{t: t, db: db, hub: hub, ctx: context.Background()}
}

func (f *fixture) merchant(name string, mainnet bool) *kassa.Merchant {
	f.t.Helper()
	m, err := f.db.CreateMerchant(f.ctx, kassa.MerchantCreate{Name: name, Email: name + "@example.com",
		Password: "correct horse", MainnetEnabled: mainnet})
	if err != nil {
		f.t.Fatal(err)
	}
	return m
}

// invoice creates an invoice of m in env and returns its id.
func (f *fixture) invoice(m *kassa.Merchant, env kassa.Environment) string {
	f.t.Helper()
	id, err := createInvoice(f.ctx, f.db, m, env)
	if err != nil {
		f.t.Fatal(err)
	}
	return id
}

func createInvoice(ctx context.Context, db *store.DB, m *kassa.Merchant, env kassa.Environment) (string, error) {
	p := kassa.Principal{MerchantID: m.ID, Environment: env, Scope: kassa.ScopeMerchant, KeyID: "k"}
	inv, _, err := db.CreateInvoice(ctx, p, kassa.InvoiceCreate{Amount: 1000}, nil)
	if err != nil {
		return "", err
	}
	return inv.ID, nil
}

// objectID is the id of the object an event is about.
func objectID(t *testing.T, e *kassa.Event) string {
	t.Helper()
	var o struct {
		ID string `json:"id"`
	}
	if err := json.Unmarshal(e.Data, &o); err != nil {
		t.Fatal(err)
	}
	return o.ID
}

// receive reads n events from sub, failing the test if they do not come in time.
func receive(t *testing.T, sub kassa.Subscription, n int) []*kassa.Event {
	t.Helper()
	var out []*kassa.Event
	timeout := time.After(deadline)
	for len(out) < n {
		select {
		case e, ok := <-sub.Events():
			if !ok {
				t.Fatalf("subscription closed after %d of %d events: %v", len(out), n, sub.Err())
			}
			out = append(out, e)
		case <-timeout:
			t.Fatalf("received %d of %d events", len(out), n)
		}
	}
	return out
}

// expectNone fails if sub holds an event now.
func expectNone(t *testing.T, name string, sub kassa.Subscription) {
	t.Helper()
	select {
	case e, ok := <-sub.Events():
		if ok {
			t.Errorf("%s got %s %s", name, e.Type, e.ID)
		} else {
			t.Errorf("%s closed: %v", name, sub.Err())
		}
	default:
	}
}

// inOrder checks that positions strictly increase.
func inOrder(t *testing.T, events []*kassa.Event) {
	t.Helper()
	for i := 1; i < len(events); i++ {
		if !events[i].Pos.After(events[i-1].Pos) {
			t.Fatalf("event %d at %+v is not after %+v", i, events[i].Pos, events[i-1].Pos)
		}
	}
}

func TestHubDeliversMatchingEventsInOrder(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		f := newFixture(t, cfg, stream.Options{})
		m1, m2 := f.merchant("one", true), f.merchant("two", false)
		mine := f.hub.Subscribe(m1.ID, kassa.Devnet, kassa.ScopeMerchant)
		defer mine.Close()
		commerce := f.hub.Subscribe(m1.ID, kassa.Devnet, kassa.ScopeCommerce)
		defer commerce.Close()
		mainnet := f.hub.Subscribe(m1.ID, kassa.Mainnet, kassa.ScopeMerchant)
		defer mainnet.Close()
		other := f.hub.Subscribe(m2.ID, kassa.Devnet, kassa.ScopeMerchant)
		defer other.Close()

		var want, wantMainnet, wantOther []string
		for i := range 5 {
			want = append(want, f.invoice(m1, kassa.Devnet))
			if i%2 == 0 {
				wantOther = append(wantOther, f.invoice(m2, kassa.Devnet))
				wantMainnet = append(wantMainnet, f.invoice(m1, kassa.Mainnet))
			}
		}
		// The last event of m1 devnet was committed last, so once it is in, every
		// earlier event has been fanned out.
		for _, c := range []struct {
			name string
			sub  kassa.Subscription
			want []string
		}{{"m1 devnet", mine, want}, {"m1 mainnet", mainnet, wantMainnet}, {"m2 devnet", other, wantOther}} {
			got := receive(t, c.sub, len(c.want))
			inOrder(t, got)
			for i, e := range got {
				if e.Type != kassa.EventInvoiceCreated || objectID(t, e) != c.want[i] {
					t.Errorf("%s event %d: %s about %s, want invoice.created about %s", c.name, i, e.Type, objectID(t, e), c.want[i])
				}
			}
		}
		for name, sub := range map[string]kassa.Subscription{"m1 devnet": mine, "m1 mainnet": mainnet, "m2 devnet": other, "m1 commerce": commerce} {
			expectNone(t, name, sub)
		}

		// A cancel writes several events; they come in the order they were written.
		if _, err := f.db.CancelInvoice(f.ctx, kassa.Principal{MerchantID: m1.ID, Environment: kassa.Devnet,
			Scope: kassa.ScopeMerchant, KeyID: "k"}, want[0]); err != nil {
			t.Fatal(err)
		}
		stored, _, err := f.db.Events(f.ctx, kassa.EventFilter{MerchantID: m1.ID, Environment: kassa.Devnet,
			Scope: kassa.ScopeMerchant, Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		n := len(stored) - len(want) // events of the cancel
		got := receive(t, mine, n)
		for i, e := range got {
			if w := stored[n-1-i]; e.ID != w.ID {
				t.Errorf("cancel event %d: %s %s, want %s %s", i, e.Type, e.ID, w.Type, w.ID)
			}
		}
	})
}

func TestHubSubscriptionStartsAtItsPosition(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		f := newFixture(t, cfg, stream.Options{})
		m := f.merchant("one", false)
		before := f.invoice(m, kassa.Devnet)
		probe := f.hub.Subscribe(m.ID, kassa.Devnet, kassa.ScopeMerchant)
		defer probe.Close()
		// Wait until the hub has passed the first invoice (it may or may not have
		// reached it before probe subscribed).
		// On PostgreSQL an event shows in the feed once every older transaction of
		// the server has ended; other tests' transactions may hold it back a moment.
		var all []*kassa.Event
		var err error
		for end := time.Now().Add(deadline); len(all) == 0 && err == nil && time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
			all, err = f.db.FeedAfter(f.ctx, kassa.FeedPos{}, 100)
		}
		if err != nil || len(all) != 1 || objectID(t, all[0]) != before {
			t.Fatalf("feed %v, %v", all, err)
		}
		for end := time.Now().Add(deadline); !f.hub.Pos().After(all[0].Pos) && f.hub.Pos() != all[0].Pos; {
			if time.Now().After(end) {
				t.Fatal("hub did not pass the first event")
			}
			time.Sleep(5 * time.Millisecond)
		}
		sub := f.hub.Subscribe(m.ID, kassa.Devnet, kassa.ScopeMerchant).(*stream.Sub)
		defer sub.Close()
		if sub.Start().After(f.hub.Pos()) || all[0].Pos.After(sub.Start()) {
			t.Fatalf("start %+v, hub %+v, first event %+v", sub.Start(), f.hub.Pos(), all[0].Pos)
		}
		after := f.invoice(m, kassa.Devnet)
		got := receive(t, sub, 1)
		if objectID(t, got[0]) != after {
			t.Fatalf("first event about %s, want %s (created after subscribing)", objectID(t, got[0]), after)
		}
		if !got[0].Pos.After(sub.Start()) {
			t.Fatalf("event at %+v not after start %+v", got[0].Pos, sub.Start())
		}
	})
}

func TestHubDropsSlowConsumerOnly(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		f := newFixture(t, cfg, stream.Options{Buffer: 3})
		m := f.merchant("one", false)
		slow := f.hub.Subscribe(m.ID, kassa.Devnet, kassa.ScopeMerchant)
		fast := f.hub.Subscribe(m.ID, kassa.Devnet, kassa.ScopeMerchant)
		defer fast.Close()
		var want []string
		for range 6 {
			want = append(want, f.invoice(m, kassa.Devnet))
			e := receive(t, fast, 1)[0]
			if objectID(t, e) != want[len(want)-1] {
				t.Fatalf("fast got %s, want %s", objectID(t, e), want[len(want)-1])
			}
		}
		var got []string
		for e := range slow.Events() { // closed after its buffer filled
			got = append(got, objectID(t, e))
		}
		if len(got) != 3 || got[0] != want[0] || got[2] != want[2] {
			t.Errorf("slow got %v, want the first 3 of %v", got, want)
		}
		if !errors.Is(slow.Err(), kassa.ErrSlowConsumer) {
			t.Errorf("slow Err = %v", slow.Err())
		}
		if fast.Err() != nil {
			t.Errorf("fast Err = %v", fast.Err())
		}
		slow.Close() // closing a dropped subscription is harmless
		if f.hub.Subscribers() != 1 {
			t.Errorf("%d subscribers, want 1", f.hub.Subscribers())
		}
		fast.Close()
		if _, ok := <-fast.Events(); ok || fast.Err() != nil {
			t.Errorf("closed subscription: Err %v", fast.Err())
		}
		fast.Close()
	})
}

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

// fakeFeed is a feed of given events, in order, with Pos.Seq their index + 1; it
// fails its first reads when failures > 0.
type fakeFeed struct {
	kassa.EventService
	mu       sync.Mutex
	events   []*kassa.Event
	failures int
}

func (f *fakeFeed) add(merchantID int64, env kassa.Environment, typ string) *kassa.Event {
	f.mu.Lock()
	defer f.mu.Unlock()
	e := &kassa.Event{ID: fmt.Sprintf("evt_%d", len(f.events)+1), MerchantID: merchantID, Environment: env, Type: typ,
		Pos: kassa.FeedPos{Seq: int64(len(f.events) + 1)}}
	f.events = append(f.events, e)
	return e
}

func (f *fakeFeed) fail() error {
	if f.failures > 0 {
		f.failures--
		return errors.New("feed down")
	}
	return nil
}

func (f *fakeFeed) FeedHead(context.Context) (kassa.FeedPos, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.fail(); err != nil {
		return kassa.FeedPos{}, err
	}
	return kassa.FeedPos{Seq: int64(len(f.events))}, nil
}

func (f *fakeFeed) FeedAfter(_ context.Context, pos kassa.FeedPos, limit int) ([]*kassa.Event, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.fail(); err != nil {
		return nil, err
	}
	var out []*kassa.Event
	for _, e := range f.events {
		if e.Pos.After(pos) && len(out) < limit {
			out = append(out, e)
		}
	}
	return out, nil
}

// TestHubScopesAndRetries checks scope routing with commerce events (which no store
// writer produces yet), full pages read back to back, and that feed errors are
// retried.
func TestHubScopesAndRetries(t *testing.T) {
	feed := &fakeFeed{failures: 2}
	feed.add(1, kassa.Devnet, kassa.EventInvoiceCreated) // before the head: never delivered
	wake := make(chan struct{}, 1)
	hub := stream.New(feed, stream.Options{Wake: wake, Poll: time.Hour, Buffer: 3000})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); hub.Run(ctx) }()
	defer func() { cancel(); <-done }()
	wake <- struct{}{} // the head read failed; retry it (Poll is an hour)
	wake <- struct{}{}
	merchant := hub.Subscribe(1, kassa.Devnet, kassa.ScopeMerchant)
	commerce := hub.Subscribe(1, kassa.Devnet, kassa.ScopeCommerce)
	other := hub.Subscribe(2, kassa.Devnet, kassa.ScopeCommerce)

	var wantMerchant, wantCommerce []string
	for i := range 2500 { // more than two pages
		switch i % 3 {
		case 0:
			wantCommerce = append(wantCommerce, feed.add(1, kassa.Devnet, kassa.EventOrderUpdated).ID)
		case 1:
			wantMerchant = append(wantMerchant, feed.add(1, kassa.Devnet, kassa.EventPaymentUpdated).ID)
		default:
			feed.add(1, kassa.Mainnet, kassa.EventOrderCreated)
		}
	}
	last := feed.add(2, kassa.Devnet, kassa.EventOrderCreated)
	wake <- struct{}{}
	for _, c := range []struct {
		sub  kassa.Subscription
		want []string
	}{{merchant, wantMerchant}, {commerce, wantCommerce}, {other, []string{last.ID}}} {
		got := receive(t, c.sub, len(c.want))
		for i, e := range got {
			if e.ID != c.want[i] {
				t.Fatalf("event %d: %s, want %s", i, e.ID, c.want[i])
			}
		}
	}
	expectNone(t, "merchant", merchant)
	expectNone(t, "commerce", commerce)
	if hub.Pos() != last.Pos {
		t.Errorf("hub at %+v, want %+v", hub.Pos(), last.Pos)
	}
}

// countingFeed is the store's feed with its reads by the hub counted.
type countingFeed struct {
	kassa.EventService
	reads atomic.Int64
}

func (c *countingFeed) FeedHead(ctx context.Context) (kassa.FeedPos, error) {
	c.reads.Add(1)
	return c.EventService.FeedHead(ctx)
}

func (c *countingFeed) FeedAfter(ctx context.Context, pos kassa.FeedPos, limit int) ([]*kassa.Event, error) {
	c.reads.Add(1)
	return c.EventService.FeedAfter(ctx, pos, limit)
}

// TestHubIdleReadsNothing checks that a hub nobody listens to reads nothing from
// the feed however many commits wake it, and that a subscription made afterwards
// starts at the feed's head: it gets exactly the events after it, none from the
// idle time.
func TestHubIdleReadsNothing(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		db := storetest.Open(t, cfg)
		feed := &countingFeed{EventService: db}
		hub := stream.New(feed, stream.Options{Wake: db.Commits(), Poll: 20 * time.Millisecond, IdleSkip: time.Hour})
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() { defer close(done); hub.Run(ctx) }()
		t.Cleanup(func() { cancel(); <-done })
		f := &fixture{t: t, db: db, hub: hub, ctx: context.Background()}
		m := f.merchant("idle", false)
		for end := time.Now().Add(deadline); feed.reads.Load() == 0; time.Sleep(time.Millisecond) {
			if time.Now().After(end) {
				t.Fatal("the hub never read the feed's head")
			}
		}
		started := feed.reads.Load() // the head, read once at the start
		var idle []string
		for range 5 {
			idle = append(idle, f.invoice(m, kassa.Devnet))
		}
		time.Sleep(100 * time.Millisecond) // commits' wake-ups and several polls
		if n := feed.reads.Load() - started; n != 0 {
			t.Fatalf("an idle hub read the feed %d times", n)
		}
		sub := hub.Subscribe(m.ID, kassa.Devnet, kassa.ScopeMerchant)
		defer sub.Close()
		if n := feed.reads.Load() - started; n != 1 {
			t.Fatalf("the first subscription read the feed %d times, want once (its head)", n)
		}
		id := f.invoice(m, kassa.Devnet)
		got := receive(t, sub, 1)
		if got[0].Type != kassa.EventInvoiceCreated || objectID(t, got[0]) != id {
			t.Fatalf("first event %s about %s, want invoice.created of %s (idle ones: %v)", got[0].Type, objectID(t, got[0]), id, idle)
		}
		expectNone(t, "after the first", sub)
	})
}

// TestHubIdleSkipsNowAndThen checks that a hub nobody listens to still moves to
// the feed's head every Options.IdleSkip, so its position never trails by much.
func TestHubIdleSkipsNowAndThen(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		f := newFixture(t, cfg, stream.Options{IdleSkip: 10 * time.Millisecond})
		m := f.merchant("skip", false)
		for range 3 {
			f.invoice(m, kassa.Devnet)
		}
		events, _, err := f.db.Events(f.ctx, kassa.EventFilter{MerchantID: m.ID, Environment: kassa.Devnet,
			Scope: kassa.ScopeMerchant, Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		last := events[0].Pos // newest first
		// On PostgreSQL the head covers an event once every older transaction ended.
		for end := time.Now().Add(deadline); last.After(f.hub.Pos()); time.Sleep(5 * time.Millisecond) {
			if time.Now().After(end) {
				t.Fatalf("hub position %+v never reached the last event's %+v", f.hub.Pos(), last)
			}
		}
	})
}
