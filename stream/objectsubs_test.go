package stream_test

import (
	"bytes"
	"context"
	"errors"
	"testing"
	"time"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/invoicing"
	"github.com/kassapay/kassa/store"
	"github.com/kassapay/kassa/store/storetest"
	"github.com/kassapay/kassa/stream"
)

// TestHubSubscribeKey checks SubscribeKey against the plain way: a subscription to
// the merchant's events filtered with bytes.Contains(event.Data, key), for keys that
// are UUIDs (indexed by the hub) and one that is not (tested against every event).
func TestHubSubscribeKey(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		f := newFixture(t, cfg, stream.Options{})
		m, other := f.merchant("one", false), f.merchant("two", false)
		a, b, c := f.invoice(m, kassa.Devnet), f.invoice(m, kassa.Devnet), f.invoice(m, kassa.Devnet)
		elsewhere := f.invoice(other, kassa.Devnet)

		plain := f.hub.Subscribe(m.ID, kassa.Devnet, kassa.ScopeMerchant)
		defer plain.Close()
		keys := []struct {
			name, key string
		}{
			{"invoice a", a},
			{"invoice a again", a},
			{"invoice b", b},
			{"never mentioned", kassa.NewUUID()},
			{"the other merchant's invoice", elsewhere},
			{"not a UUID (a's first half)", a[:18]},
		}
		subs := make([]stream.Subscription, len(keys))
		for i, k := range keys {
			subs[i] = f.hub.SubscribeKey(m.ID, kassa.Devnet, kassa.ScopeMerchant, k.key)
			defer subs[i].Close()
		}
		if n := f.hub.Subscribers(); n != len(keys)+1 {
			t.Fatalf("%d subscribers, want %d", n, len(keys)+1)
		}

		p := kassa.Principal{MerchantID: m.ID, Environment: kassa.Devnet, Scope: kassa.ScopeMerchant, KeyID: "k"}
		for _, id := range []string{a, c, b} {
			if _, err := invoicing.Over(f.db).CancelInvoice(f.ctx, p, id); err != nil {
				t.Fatal(err)
			}
		}
		f.invoice(other, kassa.Devnet)
		last := f.invoice(m, kassa.Devnet)
		// Everything the plain subscription gets up to the last invoice's event (the
		// invoices made before subscribing may come too, if the hub had not passed
		// them yet: to every subscription alike).
		var all []*kassa.Event
		for len(all) == 0 || objectID(t, all[len(all)-1]) != last {
			all = append(all, receive(t, plain, 1)...)
		}
		for i, k := range keys {
			var want []string
			for _, e := range all {
				if bytes.Contains(e.Data, []byte(k.key)) {
					want = append(want, e.ID)
				}
			}
			if k.key == a && len(want) == 0 {
				t.Fatalf("no event mentions invoice a: the test proves nothing")
			}
			got := receive(t, subs[i], len(want))
			inOrder(t, got)
			for j, e := range got {
				if e.ID != want[j] {
					t.Errorf("%s: event %d is %s, want %s", k.name, j, e.ID, want[j])
				}
			}
			expectNone(t, k.name, subs[i])
		}

		subs[0].Close()
		subs[len(subs)-1].Close()
		if n := f.hub.Subscribers(); n != len(keys)-1 {
			t.Errorf("%d subscribers after closing two, want %d", n, len(keys)-1)
		}
	})
}

func TestHubSubscribeKeyEnds(t *testing.T) {
	for _, tc := range []struct {
		name string
		key  func(id string) string
	}{
		{"UUID", func(id string) string { return id }},
		{"not a UUID", func(id string) string { return id[:18] }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db := storetest.Open(t, storetest.SQLiteConfig(t))
			hub := stream.New(db, stream.Options{Buffer: 1, Wake: db.Commits()})
			ctx, stop := context.WithCancel(context.Background())
			done := make(chan struct{})
			go func() { defer close(done); hub.Run(ctx) }()
			defer func() { stop(); <-done }()
			f := &fixture{t: t, db: db, hub: hub, ctx: context.Background()}
			m := f.merchant("one", false)
			customer := kassa.NewUUID() // two invoices of one customer: two events that mention it
			key := tc.key(customer)

			slow := hub.SubscribeKey(m.ID, kassa.Devnet, kassa.ScopeMerchant, key)
			p := kassa.Principal{MerchantID: m.ID, Environment: kassa.Devnet, Scope: kassa.ScopeMerchant, KeyID: "k"}
			for range 2 {
				if _, _, err := invoicing.Over(db).CreateInvoice(f.ctx, p, kassa.InvoiceCreate{Amount: 1000, CustomerID: &customer}, nil); err != nil {
					t.Fatal(err)
				}
			}
			// Not read until the hub dropped it: its buffer of one overflowed.
			for end := time.Now().Add(deadline); slow.Err() == nil; time.Sleep(5 * time.Millisecond) {
				if time.Now().After(end) {
					t.Fatal("the slow subscription was not dropped")
				}
			}
			for range slow.Events() {
			}
			if !errors.Is(slow.Err(), stream.ErrSlowConsumer) {
				t.Errorf("slow Err = %v, want ErrSlowConsumer", slow.Err())
			}
			slow.Close() // harmless after the drop
			if n := hub.Subscribers(); n != 0 {
				t.Errorf("%d subscribers after the drop, want 0", n)
			}

			open := hub.SubscribeKey(m.ID, kassa.Devnet, kassa.ScopeMerchant, key)
			stop()
			<-done
			for range open.Events() { // closed by the hub's end
			}
			if !errors.Is(open.Err(), stream.ErrStreamStopped) {
				t.Errorf("open Err = %v, want ErrStreamStopped", open.Err())
			}
			open.Close()
		})
	}
}
