package main

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// privatePG is a PostgreSQL cluster of the test's own, in a temp dir on a free
// port, so the test may restart and stop it without touching the machine's.
type privatePG struct {
	t    *testing.T
	bin  string // directory of initdb and pg_ctl
	dir  string // the cluster's data directory
	port string
	cred *syscall.Credential // the postgres user when the test runs as root
}

// pgBinDir is where the PostgreSQL 15 server binaries live on Debian and Ubuntu;
// KASSA_FAULTS_PG_BIN names another directory.
const pgBinDir = "/usr/lib/postgresql/15/bin"

// startPrivatePG makes a cluster with initdb (trust auth, user postgres) and
// starts it on a free loopback port, with its socket in its temp dir. It skips
// the test when the binaries are missing, and stops the cluster at the end.
func startPrivatePG(t *testing.T) *privatePG {
	t.Helper()
	bin := pgBinDir
	if b := os.Getenv("KASSA_FAULTS_PG_BIN"); b != "" {
		bin = b
	}
	for _, name := range []string{"initdb", "pg_ctl"} {
		if _, err := os.Stat(filepath.Join(bin, name)); err != nil {
			t.Skipf("PostgreSQL server binaries not found (%v): install postgresql-15 or set KASSA_FAULTS_PG_BIN", err)
		}
	}
	root, err := os.MkdirTemp("", "kassa-faults-pg-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(root) })
	p := &privatePG{t: t, bin: bin, dir: filepath.Join(root, "data")}
	if os.Geteuid() == 0 { // initdb refuses root: run the cluster as postgres
		u, err := user.Lookup("postgres")
		if err != nil {
			t.Skipf("running as root and no postgres user to run a private cluster as: %v", err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		p.cred = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
		if err := os.Chown(root, uid, gid); err != nil {
			t.Fatal(err)
		}
	}
	_, p.port, _ = net.SplitHostPort(freeAddr(t))
	p.run("initdb", "-D", p.dir, "-U", "postgres", "--auth=trust", "-E", "UTF8")
	p.ctl("start")
	t.Cleanup(func() {
		cmd := p.cmd("pg_ctl", "-D", p.dir, "stop", "-m", "immediate", "-w")
		_ = cmd.Run()
	})
	return p
}

// dsn is the URL of the cluster's postgres database.
func (p *privatePG) dsn() string {
	return "postgres://postgres@127.0.0.1:" + p.port + "/postgres?sslmode=disable"
}

// cmd is one of the cluster's binaries, run as its owner.
func (p *privatePG) cmd(name string, args ...string) *exec.Cmd {
	cmd := exec.Command(filepath.Join(p.bin, name), args...)
	cmd.Dir = filepath.Dir(p.dir)
	if p.cred != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: p.cred}
	}
	return cmd
}

// run runs a binary and fails the test if it fails.
func (p *privatePG) run(name string, args ...string) {
	p.t.Helper()
	if out, err := p.cmd(name, args...).CombinedOutput(); err != nil {
		p.t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
}

// ctl runs pg_ctl action ("start", "restart", "stop"), waiting for it to finish,
// shutting down with -m fast (sessions are ended, as in a routine restart).
func (p *privatePG) ctl(action string) {
	p.t.Helper()
	args := []string{"-D", p.dir, "-w", "-t", "60", "-l", filepath.Join(filepath.Dir(p.dir), "postgres.log")}
	if action != "start" {
		args = append(args, "-m", "fast")
	}
	if action != "stop" {
		args = append(args, "-o", fmt.Sprintf("-p %s -k %s -c listen_addresses=127.0.0.1 -c max_connections=60",
			p.port, filepath.Dir(p.dir)))
	}
	began := time.Now()
	p.run("pg_ctl", append([]string{action}, args...)...)
	p.t.Logf("pg_ctl %s took %v", action, time.Since(began).Round(time.Millisecond))
}
