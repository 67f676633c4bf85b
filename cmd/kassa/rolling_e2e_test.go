package main

import (
	"net/url"
	"syscall"
	"testing"
	"time"
)

// TestRollingRestart restarts three kassa serve processes on one PostgreSQL, one
// at a time, behind a proxy that health-checks /readyz every 100 ms, while
// requests flow through the proxy all along (creates with an Idempotency-Key,
// lists, reads) and a WebSocket client follows /ws/merchant/events through it,
// reconnecting with since= whenever its stream closes. Each restart is SIGTERM
// (the instance drains: /readyz 503 while it still serves), its exit, and a new
// process with the same flags on a new port put in the proxy in place of the old.
// Not one request may fail, every acknowledged invoice must be stored, and the
// stream client must see the invoice.created of each. The answers by status, each
// restart's drain and the stream's reconnects are logged.
//
//	KASSA_TEST_POSTGRES_DSN=postgres://... go test ./cmd/kassa -run TestRollingRestart -v
func TestRollingRestart(t *testing.T) {
	a, b, c, key, _ := threeInstances(t, "KASSA_DRAIN_DELAY=1s",
		"KASSA_RATE_LIMIT=1e9", "KASSA_RATE_BURST=1000000000", "KASSA_CREATE_RATE_LIMIT=1e9", "KASSA_CREATE_RATE_BURST=1000000000")
	proxy := newTestProxy(t, a.url, b.url, c.url)
	events := followEvents(t, proxy.url, key.APIKey)
	load := startSteadyLoad(proxy.url, key.APIKey, 2, 5*time.Millisecond)
	start := time.Now()
	time.Sleep(2 * time.Second)
	for i, in := range []*instance{a, b, c} {
		restartBehind(t, proxy, in, i)
		time.Sleep(2 * time.Second)
	}
	load.stop()
	elapsed := time.Since(start)

	t.Logf("over %.1f s through the proxy: %s", elapsed.Seconds(), load.report())
	t.Logf("proxy: %d requests sent to another backend after a failed dial", proxy.redialed.Load())
	for _, f := range load.failures {
		t.Errorf("failed: %s", f)
	}
	for _, e := range proxy.failures() {
		t.Logf("proxy 502: %s", e)
	}
	if load.failed > 0 {
		t.Fatalf("%d requests failed during the rolling restart", load.failed)
	}
	if len(load.acked) == 0 {
		t.Fatal("no invoice was created")
	}

	// Every acknowledged invoice is stored: page through the list.
	stored := map[string]bool{}
	for after := ""; ; {
		var page struct {
			Data    []struct{ ID string }
			HasMore bool `json:"has_more"`
		}
		path := "/api/v1/invoices?limit=100"
		if after != "" {
			path += "&starting_after=" + url.QueryEscape(after)
		}
		wantStatus(t, call(t, "GET", proxy.url+path, map[string]string{"x-api-key": key.APIKey}, nil, &page), 200)
		for _, inv := range page.Data {
			stored[inv.ID] = true
		}
		if !page.HasMore || len(page.Data) == 0 {
			break
		}
		after = page.Data[len(page.Data)-1].ID
	}
	for _, id := range load.acked {
		if !stored[id] {
			t.Errorf("invoice %s was acknowledged (201) but is not stored", id)
		}
	}
	t.Logf("%d invoices acknowledged, %d stored", len(load.acked), len(stored))

	// Every invoice.created reaches the stream client, across its reconnects.
	deadline := time.Now().Add(30 * time.Second)
	for len(events.missing(load.acked)) > 0 && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	events.stop()
	missing := events.missing(load.acked)
	t.Logf("stream client: %d connections, ended by %v; failed dials %d", events.connects, events.closes, len(events.failures))
	for _, f := range events.failures {
		t.Errorf("stream %s", f)
	}
	if events.connects < 2 {
		t.Errorf("the stream client never reconnected: its instance was restarted, so it should have")
	}
	if len(missing) > 0 {
		t.Fatalf("the stream client missed the invoice.created of %d of %d invoices, e.g. %s",
			len(missing), len(load.acked), missing[0])
	}
}

// restartBehind restarts the instance in behind the proxy: SIGTERM, wait until the
// proxy takes it out and it exits (0), start a process with its flags on a new
// port, put it in the proxy in its place and wait until the proxy sends to it.
func restartBehind(t *testing.T, proxy *testProxy, in *instance, i int) {
	t.Helper()
	signaled := time.Now()
	if err := in.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	proxy.waitHealth(t, in.url, false)
	out := time.Since(signaled)
	select {
	case err := <-in.exited:
		if err != nil {
			t.Fatalf("instance %d exited with %v after SIGTERM", i, err)
		}
	case <-time.After(time.Minute):
		t.Fatalf("instance %d did not exit within a minute of SIGTERM", i)
	}
	exited := time.Since(signaled)
	next := startServe(t, in.env, in.args...)
	proxy.replace(t, in.url, next.url)
	*in = *next
	t.Logf("restart %d: out of the proxy %v after SIGTERM, exited after %v (drain and shutdown), back in the proxy after %v",
		i, out.Round(time.Millisecond), exited.Round(time.Millisecond), time.Since(signaled).Round(time.Millisecond))
}
