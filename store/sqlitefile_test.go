package store_test

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/kassapay/kassa/store"
)

// TestSQLiteFilesArePrivate: a data dir that existed with 0755 and a database
// file that existed with 0644 are 0700 and 0600 once the store opened them, and
// the -wal and -shm files SQLite creates are 0600 too. (SQLite only: PostgreSQL
// keeps no files in the data dir.)
func TestSQLiteFilesArePrivate(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(dir, "kassa.db")
	if err := os.WriteFile(db, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	// Make the modes what they were however the umask is set.
	for p, m := range map[string]fs.FileMode{dir: 0o755, db: 0o644} {
		if err := os.Chmod(p, m); err != nil {
			t.Fatal(err)
		}
	}
	s, err := store.Open(context.Background(), store.Config{DataDir: dir, PasswordCost: 4})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for p, want := range map[string]fs.FileMode{dir: 0o700, db: 0o600, db + "-wal": 0o600, db + "-shm": 0o600} {
		fi, err := os.Stat(p)
		if err != nil {
			t.Errorf("%s: %v", filepath.Base(p), err)
			continue
		}
		if got := fi.Mode().Perm(); got != want {
			t.Errorf("%s: mode %o, want %o", filepath.Base(p), got, want)
		}
	}
}
