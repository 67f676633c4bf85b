package store

import (
	"errors"
	"fmt"
	"os"
)

// privateFiles makes dir 0700 and the database at path 0600, whatever existed
// before: it creates the file 0600 when missing, so SQLite opens it rather than
// creating it under the umask, and chmods an existing one with its -wal and -shm.
// SQLite creates -wal and -shm later with the database file's mode, so they are
// 0600 too; no umask is changed (it is the whole process's).
func privateFiles(dir, path string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("store: create data dir: %w", err)
	}
	if err := os.Chmod(dir, 0o700); err != nil {
		return fmt.Errorf("store: data dir: %w", err)
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("store: create database file: %w", err)
	}
	f.Close()
	for _, p := range []string{path, path + "-wal", path + "-shm"} {
		if err := os.Chmod(p, 0o600); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("store: database file: %w", err)
		}
	}
	return nil
}
