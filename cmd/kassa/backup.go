package main

import (
	"archive/tar"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/kassapay/kassa/store"
)

// backupKeyFile says whether a data dir file goes into a backup beside the database:
// the server secret and the HD master keys. The key-encryption key
// (secrets.key), when there is one, is left out on purpose: it is backed up
// apart from the data it unlocks (docs/operations.md).
func backupKeyFile(name string) bool {
	return name == "secret" || (strings.HasPrefix(name, "master-") && strings.HasSuffix(name, ".key"))
}

// backup serves `kassa backup --out FILE`: a consistent online snapshot of an
// SQLite deployment (the database as of one instant, and the key files) as a
// gzipped tar, while serve keeps running.
func backup(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var sf storeFlags
	fs := newFlagSet("kassa backup", stderr)
	sf.register(fs)
	out := fs.String("out", "", "the backup file to write, e.g. kassa-2026-11-25.tar.gz (required)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *out == "" {
		return errors.New("--out is required")
	}
	if sf.databaseURL != "" {
		return errors.New("kassa backup is for SQLite deployments; back PostgreSQL up with pg_dump plus the data dir's key files (docs/operations.md)")
	}
	if _, err := os.Stat(filepath.Join(sf.dataDir, "kassa.db")); err != nil {
		return fmt.Errorf("no Kassa database in %s: %w", sf.dataDir, err)
	}
	db, err := store.Open(ctx, sf.config())
	if err != nil {
		return err
	}
	defer db.Close()
	tmp, err := os.MkdirTemp(filepath.Dir(*out), ".kassa-backup-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	started := time.Now()
	snap := filepath.Join(tmp, "kassa.db")
	if err := db.Snapshot(ctx, snap); err != nil {
		return err
	}
	files := []string{snap}
	entries, err := os.ReadDir(sf.dataDir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if e.Type().IsRegular() && backupKeyFile(e.Name()) {
			files = append(files, filepath.Join(sf.dataDir, e.Name()))
		}
	}
	if err := writeTarGz(*out, files); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "backup of %s written to %s (%d files, the database as of %s)\n",
		sf.dataDir, *out, len(files), started.UTC().Format(time.RFC3339))
	return nil
}

// writeTarGz writes files (by base name) into a new gzipped tar at path, 0600,
// through a temporary file renamed into place once complete.
func writeTarGz(path string, files []string) (err error) {
	f, err := os.CreateTemp(filepath.Dir(path), ".kassa-backup-*.tmp")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	zw := gzip.NewWriter(f)
	tw := tar.NewWriter(zw)
	for _, name := range files {
		if err := addFile(tw, name); err != nil {
			return err
		}
	}
	if err := tw.Close(); err != nil {
		return err
	}
	if err := zw.Close(); err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Chmod(f.Name(), 0o600); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}

func addFile(tw *tar.Writer, path string) error {
	src, err := os.Open(path)
	if err != nil {
		return err
	}
	defer src.Close()
	st, err := src.Stat()
	if err != nil {
		return err
	}
	if err := tw.WriteHeader(&tar.Header{Name: filepath.Base(path), Mode: 0o600, Size: st.Size(), ModTime: st.ModTime()}); err != nil {
		return err
	}
	_, err = io.Copy(tw, src)
	return err
}
