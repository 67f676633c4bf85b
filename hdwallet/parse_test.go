package hdwallet

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/btcsuite/btcd/chaincfg"

	"github.com/kassapay/kassa"
)

// vector1Master is the master key of BIP-32 test vector 1.
const vector1Master = "xprv9s21ZrQH143K3QTDL4LXw2F7HEK3wJUD2nW2nRk4stbPy6cq3jPPqjiChkVvvNKmPGJxWUtg6LnF5kejMRNNU3TGtRBeJgk33yuGBxrMPHi"

// TestParse checks which extended keys Parse accepts as a master key, and that its
// errors never quote the key.
func TestParse(t *testing.T) {
	w, err := Parse(kassa.Devnet, vector1Master)
	if err != nil {
		t.Fatal(err)
	}
	child, err := derivePath(w.master, hardened)
	if err != nil {
		t.Fatal(err)
	}
	xpub, err := w.master.Neuter()
	if err != nil {
		t.Fatal(err)
	}
	tprv, err := w.master.CloneWithVersion(chaincfg.TestNet3Params.HDPrivateKeyID[:])
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		env  kassa.Environment
		key  string
		ok   bool
	}{
		{"xprv", kassa.Devnet, vector1Master, true},
		{"surrounding whitespace", kassa.Mainnet, "  " + vector1Master + "\n", true},
		{"xpub", kassa.Devnet, xpub.String(), false},
		{"not a master key", kassa.Devnet, child.String(), false},
		{"tprv", kassa.Devnet, tprv.String(), false},
		{"bad checksum", kassa.Devnet, vector1Master[:len(vector1Master)-1] + "j", false},
		{"empty", kassa.Devnet, "", false},
		{"unknown environment", "staging", vector1Master, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w, err := Parse(tt.env, tt.key)
			if tt.ok != (err == nil) {
				t.Fatalf("Parse: %v, want ok=%v", err, tt.ok)
			}
			if err != nil {
				if tt.key != "" && strings.Contains(err.Error(), strings.TrimSpace(tt.key)) {
					t.Errorf("error quotes the key: %v", err)
				}
				return
			}
			if w.Environment() != tt.env || w.Fingerprint() != "3442193e" { // BIP-32 vector 1
				t.Errorf("environment %s fingerprint %s", w.Environment(), w.Fingerprint())
			}
		})
	}
}

// TestWalletOutputHidesKey prints a Wallet every way a log line might and checks the
// key shows in none of them.
func TestWalletOutputHidesKey(t *testing.T) {
	w, err := Parse(kassa.Devnet, vector1Master)
	if err != nil {
		t.Fatal(err)
	}
	priv, err := w.master.ECPrivKey()
	if err != nil {
		t.Fatal(err)
	}
	secrets := []string{vector1Master, "xprv", hex.EncodeToString(priv.Serialize())}

	var outputs []string
	for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q", "%x", "%X", "%d", "%T %p"} {
		outputs = append(outputs, fmt.Sprintf(verb, w))
	}
	outputs = append(outputs, fmt.Sprint(w), fmt.Sprintf("%v", []*Wallet{w}),
		fmt.Sprintf("%+v", struct{ W *Wallet }{w}))
	//lint:ignore SA9005 the point: a Wallet marshals without its key
	j, err := json.Marshal(w)
	if err != nil {
		t.Fatal(err)
	}
	outputs = append(outputs, string(j))
	var logs bytes.Buffer
	slog.New(slog.NewTextHandler(&logs, nil)).Info("loaded", "wallet", w)
	slog.New(slog.NewJSONHandler(&logs, nil)).Info("loaded", "wallet", w)
	outputs = append(outputs, logs.String())

	for _, out := range outputs {
		for _, s := range secrets {
			if strings.Contains(strings.ToLower(out), strings.ToLower(s)) {
				t.Errorf("output reveals the key: %s", out)
			}
		}
	}
	if want := "hdwallet.Wallet{environment: devnet, fingerprint: 3442193e}"; w.String() != want {
		t.Errorf("String() = %s, want %s", w.String(), want)
	}
}
