package stream_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/invoicing"
	"github.com/kassapay/kassa/store"
	"github.com/kassapay/kassa/store/storetest"
	"github.com/kassapay/kassa/stream"
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
	inv, _, err := invoicing.Over(db).CreateInvoice(ctx, p, kassa.InvoiceCreate{Amount: 1000}, nil)
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
func receive(t *testing.T, sub stream.Subscription, n int) []*kassa.Event {
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
func expectNone(t *testing.T, name string, sub stream.Subscription) {
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
			sub  stream.Subscription
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
		for name, sub := range map[string]stream.Subscription{"m1 devnet": mine, "m1 mainnet": mainnet, "m2 devnet": other, "m1 commerce": commerce} {
			expectNone(t, name, sub)
		}

		// A cancel writes several events; they come in the order they were written.
		if _, err := invoicing.Over(f.db).CancelInvoice(f.ctx, kassa.Principal{MerchantID: m1.ID, Environment: kassa.Devnet,
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
		if !errors.Is(slow.Err(), stream.ErrSlowConsumer) {
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
