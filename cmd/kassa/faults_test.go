package main

import (
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/kassapay/kassa/store"
)

// The fault suite (docs/operations.md, "Fault suite") runs real processes through
// real faults: kill -9, a PostgreSQL restarted and stopped, a webhook receiver
// gone, slow and idle clients. Each test asserts correctness only and logs its
// measured figures on lines starting "figure:", which scripts/faults.sh gathers.
// The tests take minutes, so they run only with KASSA_FAULTS=1:
//
//	scripts/faults.sh
//	KASSA_FAULTS=1 go test ./cmd/kassa -run 'TestFault' -count=1 -v -timeout 30m

// faultsOn skips t unless KASSA_FAULTS=1.
func faultsOn(t *testing.T) {
	t.Helper()
	if os.Getenv("KASSA_FAULTS") != "1" {
		t.Skip("fault suite: set KASSA_FAULTS=1 to run it (scripts/faults.sh)")
	}
}

// figure logs one measured figure line for the summary of scripts/faults.sh.
func figure(t *testing.T, format string, args ...any) {
	t.Helper()
	t.Logf("figure: %s: %s", t.Name(), fmt.Sprintf(format, args...))
}

// faultFlags lift the per-key rate limits, so the load measures the faults and
// not the limiter, and turn the access log off (the tests count the answers;
// warnings and errors are still logged).
var faultFlags = []string{"--rate-limit", "100000", "--rate-burst", "100000",
	"--create-rate-limit", "100000", "--create-rate-burst", "100000", "--access-log", "off"}

// faultKassa is a kassa serve process (not --dev) that a fault test kills and
// restarts on one address and one store, with a merchant and a devnet merchant
// key made through the API (a --dev start would replace its keys on every start).
type faultKassa struct {
	t    *testing.T
	cfg  store.Config
	addr string
	env  []string
	in   *instance
	key  string            // the merchant key
	auth map[string]string // x-api-key: key
}

// newFaultKassa creates a merchant on cfg's store, starts serve on a fixed
// loopback address with env, and makes a merchant key.
func newFaultKassa(t *testing.T, cfg store.Config, env ...string) *faultKassa {
	t.Helper()
	if cfg.DataDir == "" {
		cfg.DataDir = t.TempDir()
	}
	runKassa(t, append([]string{"merchant", "create", "--name", "Faults", "--email", "ops@faults.test",
		"--password", "correct horse"}, storeArgs(cfg)...)...)
	f := &faultKassa{t: t, cfg: cfg, addr: freeAddr(t), env: env}
	f.start()
	var login struct{ Token string }
	wantStatus(t, call(t, "POST", f.url()+"/api/v1/auth/login", nil,
		map[string]string{"email": "ops@faults.test", "password": "correct horse"}, &login), 200)
	var key sharedKey
	wantStatus(t, call(t, "POST", f.url()+"/api/v1/api-keys", map[string]string{"Authorization": "Bearer " + login.Token},
		map[string]any{"name": "faults", "scope": "merchant", "environment": "devnet"}, &key), 201)
	f.key, f.auth = key.APIKey, map[string]string{"x-api-key": key.APIKey}
	return f
}

// start starts serve and returns how long it took to listen.
func (f *faultKassa) start() time.Duration {
	f.t.Helper()
	began := time.Now()
	args := append([]string{"serve", "--addr", f.addr}, storeArgs(f.cfg)...)
	f.in = startServe(f.t, f.env, append(args, faultFlags...)...)
	return time.Since(began)
}

// kill sends SIGKILL and waits for the process to be gone.
func (f *faultKassa) kill() {
	f.t.Helper()
	if err := f.in.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		f.t.Fatal(err)
	}
	select {
	case <-f.in.exited:
	case <-time.After(30 * time.Second):
		f.t.Fatal("kassa did not die after SIGKILL")
	}
}

func (f *faultKassa) url() string { return "http://" + f.addr }
func (f *faultKassa) pid() int    { return f.in.cmd.Process.Pid }

// tally counts request outcomes per phase and label, and keeps when each
// success came, for recovery times.
type tally struct {
	mu     sync.Mutex
	phase  string
	phases []string
	counts map[string]map[string]int
	oks    []time.Time // completion of each success
}

func newTally(phase string) *tally {
	c := &tally{counts: map[string]map[string]int{}}
	c.setPhase(phase)
	return c
}

// setPhase makes later outcomes count under phase.
func (c *tally) setPhase(phase string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.phase = phase
	if c.counts[phase] == nil {
		c.counts[phase] = map[string]int{}
		c.phases = append(c.phases, phase)
	}
}

// add counts one outcome under the current phase.
func (c *tally) add(label string, ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.counts[c.phase][label]++
	if ok {
		c.oks = append(c.oks, time.Now())
	}
}

// firstOKAfter returns the first success completed after t0.
func (c *tally) firstOKAfter(t0 time.Time) (time.Time, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, at := range c.oks {
		if at.After(t0) {
			return at, true
		}
	}
	return time.Time{}, false
}

// waitOKAfter waits up to limit for a success completed after t0 and returns how
// long after t0 it came; it fails the test when none came.
func (c *tally) waitOKAfter(t *testing.T, t0 time.Time, limit time.Duration) time.Duration {
	t.Helper()
	for deadline := time.Now().Add(limit); ; time.Sleep(5 * time.Millisecond) {
		if at, ok := c.firstOKAfter(t0); ok {
			return at.Sub(t0)
		}
		if time.Now().After(deadline) {
			t.Fatalf("no successful request within %v", limit)
		}
	}
}

// count returns how many outcomes had a label starting with prefix, in all phases.
func (c *tally) count(prefix string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, m := range c.counts {
		for label, k := range m {
			if strings.HasPrefix(label, prefix) {
				n += k
			}
		}
	}
	return n
}

// phaseCount returns how many outcomes of phase had a label starting with prefix.
func (c *tally) phaseCount(phase, prefix string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for label, k := range c.counts[phase] {
		if strings.HasPrefix(label, prefix) {
			n += k
		}
	}
	return n
}

// lines renders the counts, one line per phase: "phase: label n, label n".
func (c *tally) lines() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []string
	for _, p := range c.phases {
		var parts []string
		for _, label := range sortedKeys(c.counts[p]) {
			parts = append(parts, fmt.Sprintf("%s %d", label, c.counts[p][label]))
		}
		out = append(out, p+": "+strings.Join(parts, ", "))
	}
	return out
}

// sortedKeys returns m's keys in order.
func sortedKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }
