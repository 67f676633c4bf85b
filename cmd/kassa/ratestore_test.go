package main

import (
	"io"
	"testing"

	"github.com/kassapay/kassa/store"
	"github.com/kassapay/kassa/store/storetest"
)

// TestRateLimitStoreFlag: --rate-limit-store picks where the rate budgets live;
// auto shares them in the database on PostgreSQL only.
func TestRateLimitStoreFlag(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		db := storetest.Open(t, cfg)
		for _, c := range []struct {
			args   []string
			shared bool
		}{
			{nil, db.Engine() == store.EnginePostgres},
			{[]string{"--rate-limit-store", "auto"}, db.Engine() == store.EnginePostgres},
			{[]string{"--rate-limit-store", "memory"}, false},
			{[]string{"--rate-limit-store", "database"}, true},
		} {
			f, err := parseServeFlags(c.args, io.Discard)
			if err != nil {
				t.Fatalf("%v: %v", c.args, err)
			}
			if got := sharedRates(f.rateStore, db) != nil; got != c.shared {
				t.Errorf("%v on %s: shared %v, want %v", c.args, db.Engine(), got, c.shared)
			}
		}
	})
	if _, err := parseServeFlags([]string{"--rate-limit-store", "redis"}, io.Discard); err == nil {
		t.Error("--rate-limit-store redis accepted")
	}
}
