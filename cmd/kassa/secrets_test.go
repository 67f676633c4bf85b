package main

import (
	"context"
	"encoding/json"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/delivery"
	"github.com/kassapay/kassa/endpoints"
	"github.com/kassapay/kassa/hdwallet"
	"github.com/kassapay/kassa/sealed"
	"github.com/kassapay/kassa/store"
)

// walletAddresses runs `kassa wallet --json` with args and returns each network's
// gas wallet address.
func walletAddresses(t *testing.T, args ...string) map[string]string {
	t.Helper()
	var out struct {
		Wallets []gasWallet `json:"gas_wallets"`
	}
	raw := runKassa(t, append([]string{"wallet", "--json"}, args...)...)
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatalf("kassa wallet --json: %v\n%s", err, raw)
	}
	m := map[string]string{}
	for _, g := range out.Wallets {
		m[g.Network] = g.Address
	}
	return m
}

// clearMasterKeys writes both environments' master key files in clear, as Kassa
// did before keys were sealed, and returns the xprv keys.
func clearMasterKeys(t *testing.T, dir string) map[kassa.Environment]string {
	t.Helper()
	scratch, keys := t.TempDir(), sealed.NewKeyring(must1(sealed.NewKey()))
	out := map[kassa.Environment]string{}
	for _, env := range []kassa.Environment{kassa.Devnet, kassa.Mainnet} {
		if _, err := hdwallet.LoadOrCreate(scratch, env, keys); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(hdwallet.KeyPath(scratch, env))
		if err != nil {
			t.Fatal(err)
		}
		xprv, err := keys.Open(strings.TrimSpace(string(b)), "file:master-"+string(env)+".key")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(hdwallet.KeyPath(dir, env), []byte(xprv+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		out[env] = xprv
	}
	return out
}

// must1 returns the first of a key and its text.
func must1(k *sealed.Key, _ string) *sealed.Key { return k }

// serveRefuses runs serve with args and env and checks it exits non-zero saying want.
func serveRefuses(t *testing.T, env []string, want string, args ...string) {
	t.Helper()
	cmd := exec.Command(kassaBin, append([]string{"serve", "--addr", "127.0.0.1:0"}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "refusing to start") || !strings.Contains(string(out), want) {
		t.Fatalf("serve %v: %v, said\n%s\nwant a refusal naming %q", args, err, out, want)
	}
}

// TestSecretsAtRest: master key files from before sealing are sealed at the first
// start under a generated key and still give the same addresses; `kassa secrets
// rotate` re-seals the files and the store under a new key; serve then refuses to
// run with the old key, for the mainnet master key and for a mainnet webhook
// secret, and runs with the new one.
func TestSecretsAtRest(t *testing.T) {
	dir := t.TempDir()
	xprvs := clearMasterKeys(t, dir)
	before := walletAddresses(t, "--data-dir", dir)

	k := startKassa(t, store.Config{DataDir: dir})
	k.cmd.Process.Kill()
	<-k.exited
	kek := filepath.Join(dir, "secrets.key")
	if fi, err := os.Stat(kek); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("generated secrets key: %v, %v", fi, err)
	}
	oldKey, err := sealed.ParseKey(string(must(os.ReadFile(kek))))
	if err != nil {
		t.Fatal(err)
	}
	for env, xprv := range xprvs {
		b := string(must(os.ReadFile(hdwallet.KeyPath(dir, env))))
		if id, ok := sealed.KeyID(strings.TrimSpace(b)); !ok || id != oldKey.ID() || strings.Contains(b, xprv) {
			t.Fatalf("%s key file after start: %q, want sealed under %s", env, b, oldKey.ID())
		}
	}
	if after := walletAddresses(t, "--data-dir", dir); !maps.Equal(before, after) {
		t.Fatalf("addresses changed by sealing: %v, then %v", before, after)
	}

	// A mainnet webhook endpoint, its secret sealed under the current key.
	db, err := store.Open(context.Background(), store.Config{DataDir: dir, Secrets: sealed.NewKeyring(oldKey)})
	if err != nil {
		t.Fatal(err)
	}
	m, err := db.CreateMerchant(context.Background(), kassa.MerchantCreate{Name: "M", Email: "m@example.com", Password: "correct horse", MainnetEnabled: true})
	if err == nil {
		_, err = endpoints.Over(db, delivery.Targets{}).CreateWebhookEndpoint(context.Background(), kassa.Principal{MerchantID: m.ID, Environment: kassa.Mainnet},
			kassa.WebhookEndpointInput{URL: ptrTo("https://example.com/hook"), EnabledEvents: []string{"*"}})
	}
	db.Close()
	if err != nil {
		t.Fatal(err)
	}

	newKey, newText := sealed.NewKey()
	newFile := filepath.Join(t.TempDir(), "new.key")
	if err := os.WriteFile(newFile, []byte(newText+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	out := string(runKassa(t, "secrets", "rotate", "--new-key-file", newFile, "--data-dir", dir))
	if !strings.Contains(out, "2 master key file(s)") || !strings.Contains(out, newKey.ID()) || strings.Contains(out, " 0 stored secret(s)") {
		t.Fatalf("rotate printed %q", out)
	}
	again := string(runKassa(t, "secrets", "rotate", "--new-key-file", newFile, "--data-dir", dir))
	if !strings.Contains(again, "0 master key file(s), 0 stored secret(s)") {
		t.Fatalf("a re-run of rotate printed %q", again)
	}

	// The old key (still the data dir's secrets.key) opens nothing any more.
	serveRefuses(t, nil, "not the secrets key given", "--data-dir", dir)
	serveRefuses(t, []string{"KASSA_DEVNET_MASTER_KEY=" + xprvs[kassa.Devnet]}, "mainnet master key", "--data-dir", dir)
	serveRefuses(t, []string{"KASSA_DEVNET_MASTER_KEY=" + xprvs[kassa.Devnet], "KASSA_MAINNET_MASTER_KEY=" + xprvs[kassa.Mainnet]},
		"mainnet secret(s) cannot be opened", "--data-dir", dir)

	k = startKassa(t, store.Config{DataDir: dir}, "--secrets-key-file", newFile)
	k.cmd.Process.Kill()
	<-k.exited
	if after := walletAddresses(t, "--data-dir", dir, "--secrets-key-file", newFile); !maps.Equal(before, after) {
		t.Fatalf("addresses changed by rotation: %v, then %v", before, after)
	}
}

// must returns v, panicking on err (a file the test just wrote).
func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// ptrTo returns a pointer to s.
func ptrTo(s string) *string { return &s }
