package main

import (
	"net/http"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/kassapay/kassa/store"
	"github.com/kassapay/kassa/store/storetest"
)

// TestFaultKillUnderIdempotentLoad kills serve with SIGKILL at random moments
// while clients create invoices with idempotency keys, and restarts it on the same
// data dir and database each time; a client whose request failed sends the same
// key again, as an integrator would. Afterwards every acknowledged create is
// stored with the id it was answered, no key has two invoices, each invoice has
// one invoice.created event, no answer was a 500, and each key replays its first
// answer byte for byte. KASSA_FAULTS_KILLS sets the number of kills (default 3).
func TestFaultKillUnderIdempotentLoad(t *testing.T) {
	faultsOn(t)
	kills := 3
	if n, err := strconv.Atoi(os.Getenv("KASSA_FAULTS_KILLS")); err == nil && n > 0 {
		kills = n
	}
	const clients = 8
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		k := newFaultKassa(t, cfg)
		c := newTally("load")
		load := newCreateLoad(t, k.url(), k.key, c)
		load.start(clients, 0)
		type killFigures struct {
			listen, serviceBack, interruptedDone time.Duration
			interrupted, replayed                int
		}
		var figs []killFigures
		for i := range kills {
			time.Sleep(jitter(2*time.Second, 6*time.Second))
			at := time.Now()
			k.kill()
			listen := k.start()
			serviceBack(t, k)
			back := time.Since(at)
			t.Logf("kill %d: listening again after %v, a new request answered 200 %v after the kill", i+1,
				listen.Round(time.Millisecond), back.Round(time.Millisecond))
			// The next kill comes once the creates this one interrupted are
			// answered (up to a minute: a claim left running by a killed request
			// is taken over after kassa.IdempotencyStale), so each kill hits a
			// fresh load.
			keys := load.interrupted(at, time.Now())
			load.waitAnswered(t, keys, 3*time.Minute)
			replayed, last := load.answered(keys)
			figs = append(figs, killFigures{listen: listen, serviceBack: back, interrupted: len(keys),
				replayed: replayed, interruptedDone: sinceOrZero(last, at)})
		}
		time.Sleep(3 * time.Second)
		load.finish()

		f := load.checkStored(t, cfg)
		replays := load.checkReplays(t)
		replayedFirst, retried := load.replayedFirst()
		if n := c.count("create 5"); n > c.count("create 503 service_unavailable") {
			t.Errorf("%d answers were 5xx other than 503 service_unavailable", n)
		}
		if n := c.count("create 503 service_unavailable (no"); n > 0 {
			t.Errorf("%d answers were 503 without Retry-After", n)
		}
		figure(t, "%d kills, %d clients: acknowledged %d, stored %d, duplicated %d, missing %d, invoices without exactly one invoice.created %d",
			kills, clients, f.acknowledged, f.stored, f.duplicated, f.missing, f.wrongEvents)
		figure(t, "keys retried after a failure %d, of which first answered by a replay (committed before the kill) %d; replays checked identical %d",
			retried, replayedFirst, replays)
		for i, kf := range figs {
			figure(t, "kill %d: serve listening again after %v, a new request answered %v after the kill; %d creates interrupted (%d then answered by a replay: committed before the kill; %d made by a retry), all answered %v after the kill",
				i+1, kf.listen.Round(time.Millisecond), kf.serviceBack.Round(time.Millisecond), kf.interrupted,
				kf.replayed, kf.interrupted-kf.replayed, kf.interruptedDone)
		}
		for _, line := range c.lines() {
			figure(t, "status counts: %s", line)
		}
	})
}

// serviceBack sends a fresh list request until it is answered 200: the service
// is back for requests that hold no claim.
func serviceBack(t *testing.T, k *faultKassa) {
	t.Helper()
	began := time.Now()
	for time.Since(began) < time.Minute {
		req := mustRequest(t, k.url()+"/api/v1/invoices?limit=1", k.auth)
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return
			}
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatal("no 200 within a minute of the restart")
}
