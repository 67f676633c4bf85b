package main

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/kassapay/kassa/store"
)

// storeFlags are the flags every command that opens the store takes.
type storeFlags struct {
	dataDir     string
	databaseURL string
	mmapMiB     int
	serialized  bool
}

func (s *storeFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&s.dataDir, "data-dir", envOr("KASSA_DATA_DIR", "./data"), "directory for the embedded SQLite file and the generated secret (env KASSA_DATA_DIR)")
	fs.StringVar(&s.databaseURL, "database-url", envOr("KASSA_DATABASE_URL", ""), "postgres:// URL to use PostgreSQL instead of SQLite (env KASSA_DATABASE_URL)")
	fs.IntVar(&s.mmapMiB, "sqlite-mmap-mib", envInt("KASSA_SQLITE_MMAP_MIB", 0), "MiB of the SQLite file each connection maps into memory; mapped pages count in the process's resident memory, 0 reads through the kernel's page cache instead (env KASSA_SQLITE_MMAP_MIB)")
	fs.BoolVar(&s.serialized, "sqlite-serialized", envBool("KASSA_SQLITE_SERIALIZED"), "open SQLite connections in serialized mode, as the driver ships them, instead of without a connection mutex: slower reads, for a driver version whose connections the store cannot reach (env KASSA_SQLITE_SERIALIZED)")
}

func (s *storeFlags) config() store.Config {
	return store.Config{DataDir: s.dataDir, DatabaseURL: s.databaseURL, SQLiteMmapSize: int64(max(s.mmapMiB, 0)) << 20,
		SQLiteSerialized: s.serialized}
}

// newFlagSet returns a flag set that reports errors to stderr without exiting.
func newFlagSet(name string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	return fs
}

// envOr returns the environment variable key, or def when it is unset or empty.
func envOr(key, def string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	return def
}

// envBool reads a boolean environment twin; unset or unparsable is false.
func envBool(key string) bool {
	v, _ := strconv.ParseBool(os.Getenv(key))
	return v
}

// envFloat reads a numeric environment twin, def when unset or unparsable.
func envFloat(key string, def float64) float64 {
	if v, err := strconv.ParseFloat(os.Getenv(key), 64); err == nil {
		return v
	}
	return def
}

// envInt reads an integer environment twin, def when unset or unparsable.
func envInt(key string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(key)); err == nil {
		return v
	}
	return def
}

// loadSecret returns the server secret: the given one, or the one kept in the data
// dir, generated there (mode 0600) on first start.
func loadSecret(given, dataDir string) ([]byte, error) {
	if given != "" {
		if len(given) < 32 {
			return nil, errors.New("--secret must be at least 32 characters")
		}
		return []byte(given), nil
	}
	path := filepath.Join(dataDir, "secret")
	if b, err := os.ReadFile(path); err == nil {
		s := strings.TrimSpace(string(b))
		if len(s) < 32 {
			return nil, fmt.Errorf("%s holds a secret shorter than 32 characters", path)
		}
		return []byte(s), nil
	} else if !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	if err := os.MkdirAll(dataDir, 0o700); err != nil {
		return nil, err
	}
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return nil, err
	}
	s := hex.EncodeToString(b)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, os.ErrExist) {
		return loadSecret("", dataDir) // another process won the race: use its secret
	}
	if err != nil {
		return nil, err
	}
	if _, err := f.WriteString(s + "\n"); err != nil {
		f.Close()
		return nil, err
	}
	return []byte(s), f.Close()
}
