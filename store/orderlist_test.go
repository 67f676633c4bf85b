package store_test

import (
	"testing"
	"time"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/commerce"
	"github.com/kassapay/kassa/store"
	"github.com/kassapay/kassa/store/storetest"
)

func TestOrdersList(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		f := newFixture(t, cfg)
		var ids []string
		for i := 0; i < 5; i++ {
			customer := "a"
			if i%2 == 1 {
				customer = "b"
			}
			o, _ := f.newOrder(t, f.m, customer)
			ids = append([]string{o.ID}, ids...) // newest first
			f.clock.Advance(time.Second)
		}
		list := func(fl commerce.OrderFilter) ([]string, bool) {
			t.Helper()
			fl.MerchantID, fl.Environment = f.m.ID, kassa.Devnet
			os, more, err := f.db.Orders(f.ctx, fl)
			must(t, err)
			var out []string
			for _, o := range os {
				out = append(out, o.ID)
			}
			return out, more
		}
		got, more := list(commerce.OrderFilter{Limit: 2})
		if len(got) != 2 || got[0] != ids[0] || got[1] != ids[1] || !more {
			t.Fatalf("page 1 %v %v", got, more)
		}
		got, more = list(commerce.OrderFilter{Limit: 2, StartingAfter: &ids[1]})
		if len(got) != 2 || got[0] != ids[2] || !more {
			t.Fatalf("page 2 %v", got)
		}
		got, more = list(commerce.OrderFilter{Limit: 10, EndingBefore: &ids[2]})
		if len(got) != 2 || got[0] != ids[0] || more {
			t.Fatalf("backward %v %v", got, more)
		}
		b := "b"
		if got, _ = list(commerce.OrderFilter{Limit: 10, CustomerID: &b}); len(got) != 2 {
			t.Fatalf("customer b: %v", got)
		}
		bogus := kassa.NewUUID()
		_, _, err := f.db.Orders(f.ctx, commerce.OrderFilter{MerchantID: f.m.ID, Environment: kassa.Devnet, StartingAfter: &bogus})
		wantErr(t, err, kassa.KindInvalid, "invalid_cursor")
		os, _, err := f.db.Orders(f.ctx, commerce.OrderFilter{MerchantID: f.m.ID, Environment: kassa.Mainnet})
		must(t, err)
		if len(os) != 0 {
			t.Fatalf("mainnet sees devnet orders: %d", len(os))
		}
	})
}
