package main

import (
	"io"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kassapay/kassa/store"
)

// TestDrainOnSignal: on SIGTERM, serve reports not ready (/readyz 503 draining,
// /healthz 200) while it still answers requests, each with Connection: close so
// a proxy stops reusing its connections; then it stops and exits 0. A second
// signal during a long drain stops it at once.
func TestDrainOnSignal(t *testing.T) {
	tests := []struct {
		name    string
		delay   string
		signals int
	}{
		{"drain then stop", "3s", 1},
		{"second signal stops at once", "10m", 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			k := startKassa(t, store.Config{}, "--drain-delay", tt.delay)
			key := map[string]string{"x-api-key": k.merchantKey}
			wantStatus(t, call(t, "GET", k.url+"/readyz", nil, nil, nil), 200)
			signaled := time.Now()
			if err := k.cmd.Process.Signal(syscall.SIGTERM); err != nil {
				t.Fatal(err)
			}
			var ready struct{ Status string }
			for call(t, "GET", k.url+"/readyz", nil, nil, &ready).StatusCode != 503 {
				if time.Since(signaled) > 30*time.Second {
					t.Fatal("/readyz still 200 after SIGTERM")
				}
				time.Sleep(10 * time.Millisecond)
			}
			t.Logf("/readyz 503 %v after SIGTERM", time.Since(signaled))
			if ready.Status != "draining" {
				t.Errorf("/readyz status %q, want draining", ready.Status)
			}
			wantStatus(t, call(t, "GET", k.url+"/healthz", nil, nil, nil), 200)
			resp := call(t, "GET", k.url+"/api/v1/invoices?limit=1", key, nil, nil)
			wantStatus(t, resp, 200)
			if !resp.Close {
				t.Errorf("a response while draining lacks Connection: close")
			}
			if tt.signals == 2 {
				if err := k.cmd.Process.Signal(syscall.SIGTERM); err != nil {
					t.Fatal(err)
				}
			}
			select {
			case err := <-k.exited:
				if err != nil {
					t.Fatalf("kassa exited with %v", err)
				}
				t.Logf("exited 0 %v after SIGTERM (drain delay %s)", time.Since(signaled), tt.delay)
			case <-time.After(time.Minute):
				t.Fatalf("kassa did not exit within a minute of SIGTERM (drain delay %s)", tt.delay)
			}
		})
	}
}

// TestDrainDelayFlag: --drain-delay takes a duration or auto (5 s on PostgreSQL,
// none on SQLite), and KASSA_DRAIN_DELAY is its twin.
func TestDrainDelayFlag(t *testing.T) {
	tests := []struct {
		args, env  string
		sqlite, pg time.Duration
		bad        bool
	}{
		{args: "", sqlite: 0, pg: defaultDrainDelay},
		{args: "--drain-delay auto", sqlite: 0, pg: defaultDrainDelay},
		{args: "--drain-delay 2s", sqlite: 2 * time.Second, pg: 2 * time.Second},
		{args: "--drain-delay 0", sqlite: 0, pg: 0},
		{env: "750ms", sqlite: 750 * time.Millisecond, pg: 750 * time.Millisecond},
		{args: "--drain-delay 1s", env: "750ms", sqlite: time.Second, pg: time.Second},
		{args: "--drain-delay -1s", bad: true},
		{args: "--drain-delay soon", bad: true},
		{env: "soon", bad: true},
	}
	for _, tt := range tests {
		t.Run(tt.args+"|"+tt.env, func(t *testing.T) {
			t.Setenv("KASSA_DRAIN_DELAY", tt.env)
			f, err := parseServeFlags(strings.Fields(tt.args), io.Discard)
			if tt.bad {
				if err == nil {
					t.Fatalf("accepted")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := f.drain.on(store.EngineSQLite); got != tt.sqlite {
				t.Errorf("on SQLite %v, want %v", got, tt.sqlite)
			}
			if got := f.drain.on(store.EnginePostgres); got != tt.pg {
				t.Errorf("on PostgreSQL %v, want %v", got, tt.pg)
			}
		})
	}
}
