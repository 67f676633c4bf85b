package hdwallet

import (
	"crypto/rand"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/btcsuite/btcd/btcutil/hdkeychain"

	"kassa"
)

// KeyPath is the file holding the master key of env in dataDir: master-<env>.key.
func KeyPath(dataDir string, env kassa.Environment) string {
	return filepath.Join(dataDir, "master-"+string(env)+".key")
}

// LoadOrCreate returns the Wallet of env whose master key is in KeyPath(dataDir, env).
// On first use it creates dataDir (mode 0700) if needed and the key file (mode 0600)
// from a fresh 32-byte crypto/rand seed. The file appears atomically and is never
// overwritten: when several processes race, one key wins and all of them use it.
//
// Back the file up with the database: without it no deposit address can be found
// again, nor its funds moved.
func LoadOrCreate(dataDir string, env kassa.Environment) (*Wallet, error) {
	if !env.Valid() {
		return nil, fmt.Errorf("hdwallet: unknown environment %q", env)
	}
	path := KeyPath(dataDir, env)
	w, err := load(path, env)
	if !errors.Is(err, fs.ErrNotExist) {
		return w, err
	}
	if err := os.MkdirAll(dataDir, 0o700); err != nil {
		return nil, fmt.Errorf("hdwallet: create data dir: %w", err)
	}
	w, err = generate(env)
	if err != nil {
		return nil, err
	}
	if err := publish(path, w.master.String()+"\n"); err != nil {
		if errors.Is(err, fs.ErrExist) { // another process created it first: use its key
			return load(path, env)
		}
		return nil, err
	}
	return w, nil
}

// load parses the key file at path; a missing file gives an error matching
// fs.ErrNotExist.
func load(path string, env kassa.Environment) (*Wallet, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("hdwallet: read %s master key: %w", env, err)
	}
	w, err := Parse(env, string(b))
	if err != nil {
		return nil, fmt.Errorf("%w (file %s)", err, path)
	}
	return w, nil
}

// generate returns a Wallet with a new random master key.
func generate(env kassa.Environment) (*Wallet, error) {
	seed := make([]byte, hdkeychain.RecommendedSeedLen)
	defer clear(seed)
	for {
		if _, err := rand.Read(seed); err != nil {
			return nil, fmt.Errorf("hdwallet: random seed: %w", err)
		}
		w, err := fromSeed(env, seed)
		if errors.Is(err, hdkeychain.ErrUnusableSeed) { // probability below 2^-127
			continue
		}
		return w, err
	}
}

// publish creates path with content, failing with an error matching fs.ErrExist when
// path exists. It writes and syncs a private temporary file first and hard-links it
// into place, so a reader never sees a half-written key and a crash never leaves an
// empty key file behind (at worst an unused temporary file).
func publish(path, content string) error {
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*") // mode 0600
	if err != nil {
		return fmt.Errorf("hdwallet: create key file: %w", err)
	}
	defer os.Remove(tmp.Name())
	_, err = tmp.WriteString(content)
	if err == nil {
		err = tmp.Chmod(0o600)
	}
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("hdwallet: write key file: %w", err)
	}
	if err := os.Link(tmp.Name(), path); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return err
		}
		return fmt.Errorf("hdwallet: install key file: %w", err)
	}
	// Make the new directory entry durable; best effort, as not every platform can
	// sync a directory.
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		_ = d.Close()
	}
	return nil
}
