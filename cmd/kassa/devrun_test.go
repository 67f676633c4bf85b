package main

import (
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kassapay/kassa/store"
)

// devRun is a "kassa serve --dev" process whose stdout and stderr share one
// pipe, so its output reads in the order the process wrote it.
type devRun struct {
	cmd    *exec.Cmd
	out    *lockedBuffer
	exited chan error
	url    string
}

// runDev starts serve --dev on cfg's data dir and database with extra flags and
// waits until it listens.
func runDev(t *testing.T, cfg store.Config, extra ...string) *devRun {
	t.Helper()
	args := append([]string{"serve", "--dev", "--addr", "127.0.0.1:0", "--devchain-addr", "127.0.0.1:0"}, storeArgs(cfg)...)
	args = append(args, extra...)
	r := &devRun{cmd: exec.Command(kassaBin, args...), out: &lockedBuffer{}, exited: make(chan error, 1)}
	r.cmd.Env = append(os.Environ(), "KASSA_DRAIN_DELAY=0")
	r.cmd.Stdout, r.cmd.Stderr = r.out, r.out // the same writer: one pipe
	if err := r.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { r.exited <- r.cmd.Wait() }()
	t.Cleanup(func() {
		r.cmd.Process.Kill()
		if t.Failed() {
			t.Logf("kassa output:\n%s", r.out.String())
		}
	})
	deadline := time.Now().Add(60 * time.Second)
	for r.url == "" {
		if addr := r.field("kassa listening on"); addr != "" {
			r.url = "http://" + strings.Fields(addr)[0]
			break
		}
		select {
		case err := <-r.exited:
			t.Fatalf("kassa exited before listening: %v", err)
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatal("kassa did not listen in time")
		}
	}
	return r
}

// lines is what the process wrote so far, a line each.
func (r *devRun) lines() []string {
	return strings.Split(r.out.String(), "\n")
}

// field is the rest of the first line starting (after spaces) with prefix.
func (r *devRun) field(prefix string) string {
	for _, line := range r.lines() {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), prefix); ok {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// stop ends the process with SIGTERM and waits for it.
func (r *devRun) stop(t *testing.T) {
	t.Helper()
	if err := r.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-r.exited:
		if err != nil {
			t.Fatalf("kassa exited with %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("kassa did not exit after SIGTERM")
	}
}
