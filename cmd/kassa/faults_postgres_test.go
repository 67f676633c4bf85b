package main

import (
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/kassapay/kassa/store"
)

// TestFaultPostgresRestartAndStop runs serve on a private PostgreSQL cluster
// under a steady load of idempotent creates and lists, restarts the cluster
// (pg_ctl restart -m fast), then stops it for 15 s and starts it again. Nothing
// is ever answered 500: while the store is away requests get 503
// service_unavailable with Retry-After, /healthz stays 200, /readyz is 503 while
// the cluster is stopped and 200 after, and nothing is 5xx once it is back; serve
// stays up, every acknowledged create is stored once and replays its first
// answer. A create whose 503 could not release its idempotency claim (the store
// was away) is answered 409 idempotency_key_in_use until the claim goes stale
// (kassa.IdempotencyStale), then made. Status counts per phase, the time from the
// cluster back to the first 2xx and to the last interrupted create are logged.
func TestFaultPostgresRestartAndStop(t *testing.T) {
	faultsOn(t)
	pg := startPrivatePG(t)
	cfg := store.Config{DataDir: t.TempDir(), DatabaseURL: pg.dsn()}
	k := newFaultKassa(t, cfg)
	c := newTally("steady")
	load := newCreateLoad(t, k.url(), k.key, c)
	health := newTally("steady")
	stopHealth := pollHealth(k.url(), health)
	phase := func(p string) { c.setPhase(p); health.setPhase(p) }
	load.start(4, 2)
	time.Sleep(8 * time.Second)

	phase("restart")
	began := time.Now()
	pg.ctl("restart")
	back := time.Now()
	restartDown := back.Sub(began)
	restartOK := c.waitOKAfter(t, back, 2*time.Minute)
	time.Sleep(5 * time.Second)

	phase("stopped 15 s")
	stopAt := time.Now()
	pg.ctl("stop")
	time.Sleep(15 * time.Second)
	phase("started")
	pg.ctl("start")
	back2 := time.Now()
	stopOK := c.waitOKAfter(t, back2, 2*time.Minute)
	readyOK := health.waitOKAfter(t, back2, 2*time.Minute)
	time.Sleep(5 * time.Second)
	phase("after")
	time.Sleep(8 * time.Second)
	load.finish()
	stopHealth()
	restartKeys, stopKeys := load.interrupted(began, stopAt), load.interrupted(stopAt, time.Now())
	restartReplayed, restartLast := load.answered(restartKeys)
	stopReplayed, stopLast := load.answered(stopKeys)

	select {
	case err := <-k.in.exited:
		t.Fatalf("serve exited during the outage: %v", err)
	default:
	}
	f := load.checkStored(t, cfg)
	replays := load.checkReplays(t)
	if n := c.count("create 5") + c.count("list 5"); n > c.count("create 503 service_unavailable")+c.count("list 503 service_unavailable") {
		t.Errorf("%d answers were 5xx other than 503 service_unavailable", n)
	}
	if n := c.count("create 503 service_unavailable (no") + c.count("list 503 service_unavailable (no"); n > 0 {
		t.Errorf("%d answers were 503 without Retry-After", n)
	}
	if n, ok := health.count("healthz"), health.count("healthz 200"); n != ok {
		t.Errorf("/healthz answered other than 200 %d times of %d", n-ok, n)
	}
	if health.phaseCount("stopped 15 s", "readyz 503") == 0 {
		t.Errorf("/readyz was never 503 while PostgreSQL was stopped")
	}
	if n, ok := health.phaseCount("after", "readyz"), health.phaseCount("after", "readyz 200"); ok == 0 || n != ok {
		t.Errorf("/readyz after recovery: %d of %d answers 200", ok, n)
	}
	if n := c.phaseCount("after", "create 5") + c.phaseCount("after", "list 5"); n > 0 {
		t.Errorf("%d requests answered 5xx after recovery", n)
	}

	figure(t, "acknowledged %d, stored %d, duplicated %d, missing %d, invoices without exactly one invoice.created %d; replays checked identical %d",
		f.acknowledged, f.stored, f.duplicated, f.missing, f.wrongEvents, replays)
	figure(t, "restart -m fast: pg_ctl took %v; first 2xx %v after PostgreSQL was back; %d creates interrupted (%d then answered by a replay), all answered %v after it was back",
		restartDown.Round(time.Millisecond), restartOK.Round(time.Millisecond), len(restartKeys), restartReplayed, sinceOrZero(restartLast, back))
	figure(t, "stop 15 s: first 2xx %v after PostgreSQL was back, /readyz 200 %v after; %d creates interrupted (%d then answered by a replay), all answered %v after it was back (%v after the stop)",
		stopOK.Round(time.Millisecond), readyOK.Round(time.Millisecond), len(stopKeys), stopReplayed, sinceOrZero(stopLast, back2), sinceOrZero(stopLast, stopAt))
	for _, line := range c.lines() {
		figure(t, "status counts: %s", line)
	}
	for _, line := range health.lines() {
		figure(t, "health: %s", line)
	}
}

// sinceOrZero is at - t0 rounded to milliseconds, 0 when at is not after t0.
func sinceOrZero(at, t0 time.Time) time.Duration {
	return max(0, at.Sub(t0)).Round(time.Millisecond)
}

// pollHealth asks /healthz and /readyz every 200 ms until the returned stop is
// called, counting their answers in c (a readyz 200 counts as a success).
func pollHealth(url string, c *tally) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		client := &http.Client{Timeout: 10 * time.Second}
		for {
			for _, path := range []string{"healthz", "readyz"} {
				resp, err := client.Get(url + "/" + path)
				if err != nil {
					c.add(path+": no answer", false)
					continue
				}
				resp.Body.Close()
				label := fmt.Sprintf("%s %d", path, resp.StatusCode)
				if resp.StatusCode == 503 && resp.Header.Get("Retry-After") == "" {
					label += " (no Retry-After)"
				}
				c.add(label, path == "readyz" && resp.StatusCode == 200)
			}
			select {
			case <-done:
				return
			case <-time.After(200 * time.Millisecond):
			}
		}
	}()
	return func() { close(done); wg.Wait() }
}
