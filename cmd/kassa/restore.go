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

	"github.com/kassapay/kassa/store"
)

// restore serves `kassa restore FILE --data-dir DIR`: a backup written by
// `kassa backup` becomes the data dir DIR (0700, its files 0600). DIR must hold
// no database yet; the restored database is checked before the command says so.
func restore(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("kassa restore", stderr)
	dataDir := fs.String("data-dir", envOr("KASSA_DATA_DIR", "./data"), "the data dir to restore into; it must hold no kassa.db (env KASSA_DATA_DIR)")
	withPositional(fs, "kassa restore FILE --data-dir DIR", "Puts a backup written by kassa backup into an empty data dir.")
	var file string
	if len(args) > 0 && args[0] != "" && args[0][0] != '-' {
		file, args = args[0], args[1:]
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	if file == "" && fs.NArg() == 1 {
		file = fs.Arg(0)
	}
	if file == "" {
		return errors.New("usage: kassa restore FILE --data-dir DIR")
	}
	if _, err := os.Stat(filepath.Join(*dataDir, "kassa.db")); err == nil {
		return fmt.Errorf("%s already holds a Kassa database: restore into an empty data dir", *dataDir)
	}
	if err := os.MkdirAll(*dataDir, 0o700); err != nil {
		return err
	}
	if err := os.Chmod(*dataDir, 0o700); err != nil {
		return err
	}
	n, err := untarGz(file, *dataDir)
	if err != nil {
		return fmt.Errorf("restore %s: %w", file, err)
	}
	db, err := store.Open(ctx, store.Config{DataDir: *dataDir})
	if err != nil {
		return fmt.Errorf("the restored database does not open: %w", err)
	}
	defer db.Close()
	if err := db.IntegrityCheck(ctx); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "restored %d files from %s into %s; the database passed its integrity check\n", n, file, *dataDir)
	fmt.Fprintln(stdout, "start serve with the secrets key the backup was made under (--secrets-key-file, KASSA_SECRETS_KEY or "+
		"<data-dir>/secrets.key): a backup never holds it, and without it the sealed keys and secrets do not open")
	return nil
}

// untarGz writes the regular files of the gzipped tar at path into dir, each
// 0600 and by base name only (a name with a directory in it is refused).
func untarGz(path, dir string) (int, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return 0, err
	}
	tr := tar.NewReader(zr)
	n := 0
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return n, err
		}
		if h.Typeflag != tar.TypeReg || h.Name != filepath.Base(h.Name) || h.Name == "." || h.Name == ".." {
			return n, fmt.Errorf("unexpected entry %q: not a backup written by kassa backup", h.Name)
		}
		if !backupKeyFile(h.Name) && h.Name != "kassa.db" {
			return n, fmt.Errorf("unexpected file %q: not a backup written by kassa backup", h.Name)
		}
		out, err := os.OpenFile(filepath.Join(dir, h.Name), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if err != nil {
			return n, err
		}
		if _, err := io.Copy(out, tr); err != nil {
			out.Close()
			return n, err
		}
		if err := out.Close(); err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}
