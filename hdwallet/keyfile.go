package hdwallet

import (
	"crypto/rand"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/btcsuite/btcd/btcutil/hdkeychain"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/sealed"
)

// KeyPath is the file holding the master key of env in dataDir: master-<env>.key.
func KeyPath(dataDir string, env kassa.Environment) string {
	return filepath.Join(dataDir, "master-"+string(env)+".key")
}

// keyPlace is what a key file's sealed content is bound to: its file name.
func keyPlace(env kassa.Environment) string {
	return "file:master-" + string(env) + ".key"
}

// LoadOrCreate returns the Wallet of env whose master key is in KeyPath(dataDir, env),
// sealed under keys (a key file in clear, from before keys were sealed, is read as
// is: SealKeyFile rewrites it). On first use it creates dataDir (mode 0700) if needed
// and the key file (mode 0600) from a fresh 32-byte crypto/rand seed, sealed. The
// file appears atomically and is never overwritten: when several processes race,
// one key wins and all of them use it.
//
// Back the file up with the database, and the secrets key apart from both: without
// them no deposit address can be found again, nor its funds moved.
func LoadOrCreate(dataDir string, env kassa.Environment, keys *sealed.Keyring) (*Wallet, error) {
	if !env.Valid() {
		return nil, fmt.Errorf("hdwallet: unknown environment %q", env)
	}
	path := KeyPath(dataDir, env)
	w, err := load(path, env, keys)
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
	if err := publish(path, keys.Seal(w.master.String(), keyPlace(env))+"\n"); err != nil {
		if errors.Is(err, fs.ErrExist) { // another process created it first: use its key
			return load(path, env, keys)
		}
		return nil, err
	}
	return w, nil
}

// load opens and parses the key file at path; a missing file gives an error
// matching fs.ErrNotExist.
func load(path string, env kassa.Environment, keys *sealed.Keyring) (*Wallet, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("hdwallet: read %s master key: %w", env, err)
	}
	xprv, err := openKey(string(b), env, keys)
	if err != nil {
		return nil, fmt.Errorf("hdwallet: %s master key (file %s): %w", env, path, err)
	}
	w, err := Parse(env, xprv)
	if err != nil {
		return nil, fmt.Errorf("%w (file %s)", err, path)
	}
	return w, nil
}

// openKey returns the xprv key of a key file's content: opened under keys when
// sealed, as is when in clear.
func openKey(content string, env kassa.Environment, keys *sealed.Keyring) (string, error) {
	content = strings.TrimSpace(content)
	if !sealed.IsSealed(content) {
		return content, nil
	}
	if keys == nil {
		return "", errors.New("the file is sealed and no secrets key was given")
	}
	return keys.Open(content, keyPlace(env))
}

// SealKeyFile rewrites env's key file in dataDir sealed under keys' current key when
// it is in clear (a file from before keys were sealed: a one-way migration) or
// sealed under another key of keys (a rotation). It reports whether it rewrote the
// file; a missing file is left missing. The file is replaced atomically (mode 0600).
func SealKeyFile(dataDir string, env kassa.Environment, keys *sealed.Keyring) (bool, error) {
	path := KeyPath(dataDir, env)
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("hdwallet: read %s master key: %w", env, err)
	}
	content := strings.TrimSpace(string(b))
	xprv, err := openKey(content, env, keys)
	if err != nil {
		return false, fmt.Errorf("hdwallet: %s master key (file %s): %w", env, path, err)
	}
	if _, err := Parse(env, xprv); err != nil {
		return false, fmt.Errorf("%w (file %s)", err, path)
	}
	if id, ok := sealed.KeyID(content); ok && id == keys.CurrentID() {
		return false, nil
	}
	return true, replace(path, keys.Seal(xprv, keyPlace(env))+"\n")
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

// replace writes content to path in place of what it holds: through a synced
// private temporary file renamed over it, so a crash leaves the old or the new
// content, never a mix.
func replace(path, content string) error {
	tmp, err := writeTemp(path, content)
	if err != nil {
		return err
	}
	defer os.Remove(tmp)
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("hdwallet: replace key file: %w", err)
	}
	syncDir(filepath.Dir(path))
	return nil
}

// writeTemp writes content to a new synced temporary file (mode 0600) beside path
// and returns its name.
func writeTemp(path, content string) (string, error) {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*") // mode 0600
	if err != nil {
		return "", fmt.Errorf("hdwallet: create key file: %w", err)
	}
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
		os.Remove(tmp.Name())
		return "", fmt.Errorf("hdwallet: write key file: %w", err)
	}
	return tmp.Name(), nil
}

// syncDir makes new directory entries durable; best effort, as not every platform
// can sync a directory.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		_ = d.Close()
	}
}

// publish creates path with content, failing with an error matching fs.ErrExist when
// path exists. It writes and syncs a private temporary file first and hard-links it
// into place, so a reader never sees a half-written key and a crash never leaves an
// empty key file behind (at worst an unused temporary file).
func publish(path, content string) error {
	tmp, err := writeTemp(path, content)
	if err != nil {
		return err
	}
	defer os.Remove(tmp)
	if err := os.Link(tmp, path); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return err
		}
		return fmt.Errorf("hdwallet: install key file: %w", err)
	}
	syncDir(filepath.Dir(path))
	return nil
}
