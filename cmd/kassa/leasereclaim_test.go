package main

import (
	"database/sql"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kassapay/kassa/store"
	"github.com/kassapay/kassa/store/storetest"
)

func TestDeadHolder(t *testing.T) {
	self := "host-a/100/inst1"
	alive := func(pid int) bool { return pid == 200 }
	tests := []struct {
		holder string
		dead   bool
	}{
		{"host-a/300/inst1", true},        // an earlier process of this instance, gone
		{"host-a/100/inst1", false},       // this very holder
		{"host-a/200/inst1", false},       // the same instance id, still running
		{"host-b/300/inst1", false},       // another host: its pids are not ours to check
		{"host-a/300/inst2", false},       // another instance (data dir) on this host
		{"host-a/x/inst1", false},         // not a pid
		{"host-a/300/inst1/extra", false}, // not a holder of this form
		{"host-a/0/inst1", false},         // no process
	}
	for _, tt := range tests {
		if got := deadHolder(tt.holder, self, alive); got != tt.dead {
			t.Errorf("deadHolder(%q) = %v, want %v", tt.holder, got, tt.dead)
		}
	}
}

// TestRestartTakesBackItsLeases: after kill -9, kassa restarted on the same data
// dir takes its earlier process's chain-watch lease back at once, long before
// that lease would have run out (issue 37, finding 3: a single instance saw no
// block for about 28 s).
func TestRestartTakesBackItsLeases(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		if cfg.DataDir == "" {
			cfg.DataDir = t.TempDir()
		}
		k := startKassa(t, cfg)
		raw := storetest.RawDB(t, cfg)
		name := "chain-watch:" + devNetwork
		lease := func() (pid int, expires int64) {
			t.Helper()
			var holder string
			err := raw.QueryRow("SELECT holder, expires_at FROM leases WHERE name = $1", name).Scan(&holder, &expires)
			if err == sql.ErrNoRows {
				return 0, 0
			}
			if err != nil {
				t.Fatal(err)
			}
			if parts := strings.Split(holder, "/"); len(parts) == 3 {
				pid, _ = strconv.Atoi(parts[1])
			}
			return pid, expires
		}
		heldBy := func(in *instance) func() string {
			return func() string {
				if pid, _ := lease(); pid != in.cmd.Process.Pid {
					return name + " held by pid " + strconv.Itoa(pid)
				}
				return ""
			}
		}
		waitUntil(t, 30*time.Second, heldBy(k))
		if err := k.cmd.Process.Kill(); err != nil {
			t.Fatal(err)
		}
		<-k.exited
		_, expires := lease()
		k2 := startKassa(t, cfg)
		waitUntil(t, 30*time.Second, heldBy(k2))
		if now := time.Now().UnixMicro(); now >= expires {
			t.Fatalf("the restarted instance took %s only once the dead one's lease had run out", name)
		}
	})
}
