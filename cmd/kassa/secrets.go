package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/hdwallet"
	"github.com/kassapay/kassa/payment"
	"github.com/kassapay/kassa/sealed"
	"github.com/kassapay/kassa/store"
)

// secretsKeyFileName is the key-encryption key generated into the data dir when
// none is given.
const secretsKeyFileName = "secrets.key"

// secretsFlags say where the key-encryption key (KEK) is: --secrets-key-file, else
// KASSA_SECRETS_KEY (the key itself), else <data-dir>/secrets.key.
type secretsFlags struct {
	keyFile string
}

func (s *secretsFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&s.keyFile, "secrets-key-file", envOr("KASSA_SECRETS_KEY_FILE", ""),
		"file holding the key that encrypts webhook secrets, second factors and master keys at rest: 32 bytes as 64 hex digits or 44 base64 characters; "+
			"default KASSA_SECRETS_KEY (the key itself), else <data-dir>/secrets.key, generated at first start (env KASSA_SECRETS_KEY_FILE)")
}

// load returns the KEK. When none is given and the data dir has none, create
// generates one there (mode 0600) with a warning; otherwise it returns nil.
func (s *secretsFlags) load(dataDir string, create bool, log *slog.Logger) (*sealed.Key, error) {
	if s.keyFile != "" {
		b, err := os.ReadFile(s.keyFile)
		if err != nil {
			return nil, fmt.Errorf("--secrets-key-file: %w", err)
		}
		k, err := sealed.ParseKey(string(b))
		if err != nil {
			return nil, fmt.Errorf("--secrets-key-file %s: %w", s.keyFile, err)
		}
		return k, nil
	}
	if v := os.Getenv("KASSA_SECRETS_KEY"); v != "" {
		k, err := sealed.ParseKey(v)
		if err != nil {
			return nil, fmt.Errorf("KASSA_SECRETS_KEY: %w", err)
		}
		return k, nil
	}
	path := filepath.Join(dataDir, secretsKeyFileName)
	for {
		b, err := os.ReadFile(path)
		if err == nil {
			k, err := sealed.ParseKey(string(b))
			if err != nil {
				return nil, fmt.Errorf("%s: %w", path, err)
			}
			return k, nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		if !create {
			return nil, nil
		}
		if err := os.MkdirAll(dataDir, 0o700); err != nil {
			return nil, err
		}
		k, text := sealed.NewKey()
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, fs.ErrExist) {
			continue // another process won the race: use its key
		}
		if err != nil {
			return nil, err
		}
		_, err = f.WriteString(text + "\n")
		if err == nil {
			err = f.Sync()
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			os.Remove(path)
			return nil, fmt.Errorf("write %s: %w", path, err)
		}
		log.Warn("generated the secrets key into the data dir: it encrypts webhook secrets, second factors and master keys at rest, "+
			"so back it up apart from the data (a backup holding both protects nothing), or give --secrets-key-file or KASSA_SECRETS_KEY",
			"file", path, "key_id", k.ID())
		return k, nil
	}
}

// masterKeyFromEnv reports whether env's master key comes from KASSA_<ENV>_MASTER_KEY
// (used as given, never written) rather than a key file in the data dir.
func masterKeyFromEnv(env kassa.Environment) (string, bool) {
	v := os.Getenv("KASSA_" + strings.ToUpper(string(env)) + "_MASTER_KEY")
	return v, v != ""
}

// sealKeyFiles seals the master key files in dataDir under keys' current key (a
// file in clear is rewritten sealed, once) and returns how many it rewrote.
func sealKeyFiles(dataDir string, keys *sealed.Keyring, log *slog.Logger) (int, error) {
	n := 0
	for _, env := range []kassa.Environment{kassa.Devnet, kassa.Mainnet} {
		if _, ok := masterKeyFromEnv(env); ok {
			continue
		}
		changed, err := hdwallet.SealKeyFile(dataDir, env, keys)
		if err != nil {
			return n, err
		}
		if changed {
			n++
			log.Info("master key file sealed under the secrets key", "environment", env,
				"file", hdwallet.KeyPath(dataDir, env), "key_id", keys.CurrentID())
		}
	}
	return n, nil
}

// checkSecrets logs what the start's sealing pass did and refuses to run when a
// mainnet secret does not open: a devnet one, or a second factor, is logged as an
// error and the service goes on (those endpoints' deliveries wait; that sign-in
// fails).
func checkSecrets(pass store.SecretsPass, keys *sealed.Keyring, log *slog.Logger) error {
	log.Info("secrets sealed at rest", "key_id", keys.CurrentID(), "sealed_now", pass.Sealed, "already_sealed", pass.Kept,
		"unreadable", len(pass.Unreadable))
	var mainnet []store.UnreadableSecret
	for _, u := range pass.Unreadable {
		if u.Environment == kassa.Mainnet {
			mainnet = append(mainnet, u)
			continue
		}
		log.Error("stored secret cannot be opened with the secrets key given", "place", u.Place, "err", u.Err)
	}
	if len(mainnet) > 0 {
		return fmt.Errorf("refusing to start: %d mainnet secret(s) cannot be opened with the secrets key given (key id %s); first: %w",
			len(mainnet), keys.CurrentID(), mainnet[0].Err)
	}
	return nil
}

// secretsCmd runs "kassa secrets rotate --new-key-file F": it re-seals every master
// key file and stored secret under the new key in one pass that may be re-run when
// interrupted (values under the old or the new key both open meanwhile).
func secretsCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) > 0 && isHelp(args[0]) {
		fmt.Fprintln(stdout, "usage: kassa secrets rotate --new-key-file FILE [--secrets-key-file OLD] [store flags]\n\nRe-encrypts the secrets at rest under a new key; \"kassa secrets rotate -h\" lists the flags.")
		return nil
	}
	if len(args) == 0 || args[0] != "rotate" {
		return errors.New("usage: kassa secrets rotate --new-key-file FILE [--secrets-key-file OLD] [store flags]")
	}
	var (
		sf      storeFlags
		old     secretsFlags
		newFile string
	)
	fs := newFlagSet("kassa secrets rotate", stderr)
	sf.register(fs)
	old.register(fs)
	fs.StringVar(&newFile, "new-key-file", "", "file holding the new key (required): 32 bytes as 64 hex digits or 44 base64 characters")
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	if newFile == "" {
		return errors.New("--new-key-file is required (make one with: openssl rand -hex 32 > FILE)")
	}
	b, err := os.ReadFile(newFile)
	if err != nil {
		return fmt.Errorf("--new-key-file: %w", err)
	}
	next, err := sealed.ParseKey(string(b))
	if err != nil {
		return fmt.Errorf("--new-key-file %s: %w", newFile, err)
	}
	log := slog.New(slog.NewTextHandler(stderr, nil))
	prev, err := old.load(sf.dataDir, false, log)
	if err != nil {
		return err
	}
	keys := sealed.NewKeyring(next)
	if prev != nil {
		keys = sealed.NewKeyring(next, prev)
	}
	files, err := sealKeyFiles(sf.dataDir, keys, log)
	if err != nil {
		return err
	}
	cfg := sf.config()
	cfg.Secrets = keys
	db, err := store.Open(ctx, cfg)
	if err != nil {
		return fmt.Errorf("open store: %w", err)
	}
	defer db.Close()
	pass, err := db.SealSecrets(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "re-sealed under key %s: %d master key file(s), %d stored secret(s); %d already under it\n",
		next.ID(), files, pass.Sealed, pass.Kept)
	for _, u := range pass.Unreadable {
		fmt.Fprintf(stderr, "cannot open %s: %v\n", u.Place, u.Err)
	}
	if len(pass.Unreadable) > 0 {
		return fmt.Errorf("%d stored secret(s) opened with neither key were left as they are", len(pass.Unreadable))
	}
	fmt.Fprintf(stdout, "start kassa with --secrets-key-file %s (or KASSA_SECRETS_KEY) from now on", newFile)
	if prev != nil && prev.ID() != next.ID() {
		fmt.Fprintf(stdout, "; the old key (id %s) opens nothing any more", prev.ID())
	}
	fmt.Fprintln(stdout)
	return nil
}

// loadWallets loads each environment's deposit-address master key: from
// KASSA_<ENV>_MASTER_KEY when set (used as given), else the key file in the data
// dir, sealed under keys and created on first start. Back the key files up with
// the database, and the secrets key apart from both. The gas wallets' keys derive
// from these master keys: sealing the files seals them too.
func loadWallets(dataDir string, keys *sealed.Keyring) (map[kassa.Environment]payment.AddressDeriver, error) {
	out := map[kassa.Environment]payment.AddressDeriver{}
	for _, env := range []kassa.Environment{kassa.Devnet, kassa.Mainnet} {
		var (
			w   *hdwallet.Wallet
			err error
		)
		if key, ok := masterKeyFromEnv(env); ok {
			w, err = hdwallet.Parse(env, key)
		} else {
			w, err = hdwallet.LoadOrCreate(dataDir, env, keys)
		}
		if err != nil {
			return nil, fmt.Errorf("%s master key: %w", env, err)
		}
		out[env] = w
	}
	return out, nil
}
