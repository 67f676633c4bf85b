package main

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// secureDataDir makes the data dir private whatever existed before
// (decisions.md "Running in production"): the directory and every directory
// under it 0700, every file 0600. serve runs it at each start, before anything
// reads or writes there; the store creates its database files 0600 itself.
func secureDataDir(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("data dir: %w", err)
	}
	err := filepath.WalkDir(dir, func(path string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		switch {
		case e.IsDir():
			return os.Chmod(path, 0o700)
		case e.Type().IsRegular():
			return os.Chmod(path, 0o600)
		}
		return nil // a symlink or socket: left as it is
	})
	if err != nil {
		return fmt.Errorf("data dir: make it private: %w", err)
	}
	return nil
}
