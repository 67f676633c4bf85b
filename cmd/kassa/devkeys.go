package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/sealed"
	"github.com/kassapay/kassa/store"
)

// devKeysFileName is the file in the data dir where serve --dev keeps the demo
// merchant's two keys, sealed, so a restart prints the same ones.
const devKeysFileName = "dev-keys"

// devScopes are the scopes of the demo merchant's keys, in the banner's order.
var devScopes = []kassa.Scope{kassa.ScopeMerchant, kassa.ScopeCommerce}

// devKeysFile is the file's content: the secrets sealed under the secrets key,
// each bound to its place ("dev-keys:<scope>").
type devKeysFile struct {
	MerchantID int64             `json:"merchant_id"`
	Sealed     map[string]string `json:"sealed"` // scope → sealed secret
}

// keptDevKeys returns the secrets an earlier --dev start of this data dir kept,
// by scope, when every one still authenticates as an active key of the demo
// merchant m, of its scope, on devnet; false when any cannot be used (no file,
// sealed under another secrets key, revoked, deleted, another database).
func keptDevKeys(ctx context.Context, db *store.DB, dataDir string, keys *sealed.Keyring, merchantID int64) (map[kassa.Scope]string, bool, error) {
	b, err := os.ReadFile(filepath.Join(dataDir, devKeysFileName))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	var f devKeysFile
	if json.Unmarshal(b, &f) != nil || f.MerchantID != merchantID {
		return nil, false, nil
	}
	secrets := map[kassa.Scope]string{}
	for _, scope := range devScopes {
		secret, err := keys.Open(f.Sealed[string(scope)], devKeysFileName+":"+string(scope))
		if err != nil {
			return nil, false, nil
		}
		k, err := db.AuthenticateAPIKey(ctx, secret)
		if kassa.ErrorKindOf(err) == kassa.KindUnauthenticated {
			return nil, false, nil
		}
		if err != nil {
			return nil, false, err
		}
		if k.MerchantID != merchantID || k.Name != devKeyName || k.Scope != scope || k.Environment != kassa.Devnet {
			return nil, false, nil
		}
		secrets[scope] = secret
	}
	return secrets, true, nil
}

// saveDevKeys writes secrets sealed into the data dir's dev-keys file (0600),
// replacing it whole.
func saveDevKeys(dataDir string, keys *sealed.Keyring, merchantID int64, secrets map[kassa.Scope]string) error {
	f := devKeysFile{MerchantID: merchantID, Sealed: map[string]string{}}
	for scope, secret := range secrets {
		f.Sealed[string(scope)] = keys.Seal(secret, devKeysFileName+":"+string(scope))
	}
	b, err := json.Marshal(f)
	if err != nil {
		return err
	}
	path := filepath.Join(dataDir, devKeysFileName)
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, append(b, '\n'), 0o600); err != nil {
		return fmt.Errorf("dev keys: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("dev keys: %w", err)
	}
	return nil
}
