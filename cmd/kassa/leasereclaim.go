package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// instanceFile holds the data dir's instance id, which every lease holder name
// of a serve on that data dir carries.
const instanceFile = "instance-id"

// instanceHolder is this process's name in the leases it takes:
// host/pid/instance id, the instance id kept in the data dir (made on first
// start). A restart on the same data dir knows its earlier process's leases by
// it, and takes them back at once when that process is gone (reclaimLeases),
// instead of waiting out their time.
func instanceHolder(dataDir string) (string, error) {
	host, _ := os.Hostname()
	path := filepath.Join(dataDir, instanceFile)
	b, err := os.ReadFile(path)
	id := strings.TrimSpace(string(b))
	if errors.Is(err, os.ErrNotExist) || (err == nil && id == "") {
		raw := make([]byte, 8)
		if _, err := rand.Read(raw); err != nil {
			return "", err
		}
		id = hex.EncodeToString(raw)
		if err := os.WriteFile(path, []byte(id+"\n"), 0o600); err != nil {
			return "", fmt.Errorf("instance id: %w", err)
		}
	} else if err != nil {
		return "", fmt.Errorf("instance id: %w", err)
	}
	return fmt.Sprintf("%s/%d/%s", strings.ReplaceAll(host, "/", "-"), os.Getpid(), id), nil
}

// deadHolder reports whether holder names an earlier process of this instance
// (same host and instance id as self) whose pid runs no process. Another
// instance's lease, or one whose process still runs, is never taken. A holder
// equal to self (a container restarted as the same pid) needs no reclaiming:
// TryLease renews a holder's own lease.
func deadHolder(holder, self string, alive func(pid int) bool) bool {
	h, s := strings.Split(holder, "/"), strings.Split(self, "/")
	if len(h) != 3 || len(s) != 3 || h[0] != s[0] || h[2] != s[2] || holder == self {
		return false
	}
	pid, err := strconv.Atoi(h[1])
	if err != nil || pid <= 0 {
		return false
	}
	return !alive(pid)
}

// processAlive reports whether a process with pid runs on this host.
func processAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// leaseStore is what reclaimLeases needs of the store.
type leaseStore interface {
	LeaseHolders(ctx context.Context) (map[string]string, error)
	ReleaseLease(ctx context.Context, name, holder string) error
}

// reclaimLeases releases the leases an earlier, dead process of this instance
// held (a kill -9 leaves them until they expire, up to 30 s without a watcher),
// so this process takes them at its first round.
func reclaimLeases(ctx context.Context, db leaseStore, self string, log *slog.Logger) error {
	held, err := db.LeaseHolders(ctx)
	if err != nil {
		return err
	}
	for name, holder := range held {
		if !deadHolder(holder, self, processAlive) {
			continue
		}
		if err := db.ReleaseLease(ctx, name, holder); err != nil {
			return err
		}
		log.Info("took back a lease of this instance's earlier process", "lease", name, "was", holder)
	}
	return nil
}
