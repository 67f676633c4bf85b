package hdwallet

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/sealed"
)

// testKeys seals the key files of these tests.
var testKeys = func() *sealed.Keyring {
	k, _ := sealed.NewKey()
	return sealed.NewKeyring(k)
}()

// addresses returns the first few addresses of two networks of w's environment.
func addresses(t *testing.T, w *Wallet) []string {
	t.Helper()
	var out []string
	for _, account := range []uint32{0, 5} {
		for i := range uint32(3) {
			a, err := w.Address(network(w.Environment(), "n", account), i)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, a)
		}
	}
	return out
}

// TestLoadOrCreateReloads checks that the key is created once, privately, and that
// reloading it (as after restoring a database next to the key) finds the same
// addresses again.
func TestLoadOrCreateReloads(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data") // does not exist yet
	w1, err := LoadOrCreate(dir, kassa.Devnet, testKeys)
	if err != nil {
		t.Fatal(err)
	}
	path := KeyPath(dir, kassa.Devnet)
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("key file mode %v, want 0600", fi.Mode().Perm())
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(b), "kseal:v1:"+testKeys.CurrentID()+":") || strings.Contains(string(b), "xprv") {
		t.Errorf("key file is not sealed under the secrets key")
	}
	xprv, err := testKeys.Open(strings.TrimSpace(string(b)), "file:master-devnet.key")
	if err != nil {
		t.Fatal(err)
	}

	w2, err := LoadOrCreate(dir, kassa.Devnet, testKeys)
	if err != nil {
		t.Fatal(err)
	}
	w3, err := Parse(kassa.Devnet, xprv) // the same key passed through the environment
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Join(addresses(t, w1), " ")
	for _, w := range []*Wallet{w2, w3} {
		if got := strings.Join(addresses(t, w), " "); got != want {
			t.Errorf("reloaded addresses %s, want %s", got, want)
		}
	}
	if b2, _ := os.ReadFile(path); string(b2) != string(b) {
		t.Error("reloading rewrote the key file")
	}

	mainnet, err := LoadOrCreate(dir, kassa.Mainnet, testKeys)
	if err != nil {
		t.Fatal(err)
	}
	if mainnet.Fingerprint() == w1.Fingerprint() {
		t.Error("devnet and mainnet share a master key")
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		t.Errorf("data dir holds %d entries, want the 2 key files", len(entries))
	}
}

// TestLoadOrCreateConcurrent races several first uses: all must end up with the one
// key that was written.
func TestLoadOrCreateConcurrent(t *testing.T) {
	for range 5 {
		dir := t.TempDir()
		const n = 4
		fps := make([]string, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() {
				w, err := LoadOrCreate(dir, kassa.Mainnet, testKeys)
				if err != nil {
					t.Error(err)
					return
				}
				fps[i] = w.Fingerprint()
			})
		}
		wg.Wait()
		onDisk, err := LoadOrCreate(dir, kassa.Mainnet, testKeys)
		if err != nil {
			t.Fatal(err)
		}
		for i, fp := range fps {
			if fp != onDisk.Fingerprint() {
				t.Errorf("goroutine %d got key %s, the file holds %s", i, fp, onDisk.Fingerprint())
			}
		}
		if entries, _ := os.ReadDir(dir); len(entries) != 1 {
			t.Errorf("data dir holds %d entries, want only the key file", len(entries))
		}
	}
}

// TestLoadOrCreateExistingFile checks that an operator-provided key file is used as
// is, and that a damaged one is an error and is left alone, never replaced.
func TestLoadOrCreateExistingFile(t *testing.T) {
	tests := []struct {
		name    string
		content string
		want    string // address 0 of account 0, "" for an error
	}{
		{"known key", mnemonicKey(t) + "\n", "0x9858EfFD232B4033E47d90003D41EC34EcaEda94"},
		{"garbage", "not a key\n", ""},
		{"empty", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := KeyPath(dir, kassa.Devnet)
			if err := os.WriteFile(path, []byte(tt.content), 0o600); err != nil {
				t.Fatal(err)
			}
			w, err := LoadOrCreate(dir, kassa.Devnet, testKeys)
			if tt.want == "" {
				if err == nil {
					t.Fatal("LoadOrCreate accepted a damaged key file")
				}
				if b, _ := os.ReadFile(path); string(b) != tt.content {
					t.Error("LoadOrCreate replaced a damaged key file")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got, _ := w.Address(network(kassa.Devnet, "n", 0), 0); got != tt.want {
				t.Errorf("address %s, want %s", got, tt.want)
			}
		})
	}
	if _, err := LoadOrCreate(t.TempDir(), "staging", testKeys); err == nil {
		t.Error("LoadOrCreate accepted an unknown environment")
	}
}

// mnemonicKey returns the master xprv of the standard test mnemonic.
func mnemonicKey(t *testing.T) string {
	t.Helper()
	return mnemonicWallet(t).master.String()
}

// TestSealKeyFile checks the one-way migration of a key file in clear and a
// rotation: the file ends sealed under the current key, derives the same
// addresses, and the key it replaced no longer opens it.
func TestSealKeyFile(t *testing.T) {
	dir := t.TempDir()
	path := KeyPath(dir, kassa.Mainnet)
	if err := os.WriteFile(path, []byte(mnemonicKey(t)+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	const want = "0x9858EfFD232B4033E47d90003D41EC34EcaEda94"
	oldKey, _ := sealed.NewKey()
	newKey, _ := sealed.NewKey()
	old, rotation := sealed.NewKeyring(oldKey), sealed.NewKeyring(newKey, oldKey)
	steps := []struct {
		name      string
		keys      *sealed.Keyring
		rewritten bool
		sealedBy  string
	}{
		{"clear file sealed", old, true, oldKey.ID()},
		{"sealed file kept", old, false, oldKey.ID()},
		{"rotated", rotation, true, newKey.ID()},
		{"rotation re-run", rotation, false, newKey.ID()},
	}
	for _, s := range steps {
		got, err := SealKeyFile(dir, kassa.Mainnet, s.keys)
		if err != nil || got != s.rewritten {
			t.Fatalf("%s: SealKeyFile = %v, %v; want %v", s.name, got, err, s.rewritten)
		}
		b, _ := os.ReadFile(path)
		if id, _ := sealed.KeyID(strings.TrimSpace(string(b))); id != s.sealedBy {
			t.Fatalf("%s: file sealed under %q, want %q", s.name, id, s.sealedBy)
		}
		if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
			t.Fatalf("%s: mode %v, want 0600", s.name, fi.Mode().Perm())
		}
		w, err := LoadOrCreate(dir, kassa.Mainnet, s.keys)
		if err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		if a, _ := w.Address(network(kassa.Mainnet, "n", 0), 0); a != want {
			t.Fatalf("%s: address %s, want %s", s.name, a, want)
		}
	}
	if _, err := LoadOrCreate(dir, kassa.Mainnet, old); !errors.Is(err, sealed.ErrUnknownKey) {
		t.Fatalf("the old key still opens the rotated file: %v", err)
	}
	if _, err := SealKeyFile(dir, kassa.Mainnet, old); !errors.Is(err, sealed.ErrUnknownKey) {
		t.Fatalf("SealKeyFile under an unknown key: %v", err)
	}
	if got, err := SealKeyFile(t.TempDir(), kassa.Mainnet, old); got || err != nil {
		t.Fatalf("SealKeyFile of a missing file = %v, %v", got, err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Fatalf("data dir holds %d entries, want only the key file", len(entries))
	}
}
