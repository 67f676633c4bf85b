package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kassapay/kassa/store"
)

// TestServeMakesDataDirPrivate: serve, started on a data dir left 0755 with a
// 0644 database, secret and dev chain file, runs with every directory there 0700
// and every file 0600, the master keys and SQLite's -wal and -shm included.
func TestServeMakesDataDirPrivate(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	chain := filepath.Join(dir, "devchain")
	if err := os.MkdirAll(chain, 0o755); err != nil {
		t.Fatal(err)
	}
	files := map[string]string{"kassa.db": "", "secret": strings.Repeat("ab", 32) + "\n", "devchain/state": "x"}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// Make the modes what they were however the umask is set.
	for _, p := range []string{dir, chain} {
		if err := os.Chmod(p, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for name := range files {
		if err := os.Chmod(filepath.Join(dir, name), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	_, stop := serveInProcess(t, store.Config{DataDir: dir})
	defer stop()
	seen := map[string]bool{}
	err := filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := e.Info()
		if err != nil {
			return err
		}
		want := fs.FileMode(0o600)
		if e.IsDir() {
			want = 0o700
		}
		rel, _ := filepath.Rel(dir, p)
		seen[rel] = true
		if got := fi.Mode().Perm(); got != want {
			t.Errorf("%s: mode %o, want %o", rel, got, want)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{".", "devchain", "devchain/state", "secret", "kassa.db", "kassa.db-wal", "kassa.db-shm"} {
		if !seen[name] {
			t.Errorf("%s missing from the data dir", name)
		}
	}
	t.Logf("data dir: %d entries checked", len(seen))
}
