package devchain

import (
	"crypto/pbkdf2"
	"crypto/sha512"
	"encoding/hex"
	"testing"

	"github.com/btcsuite/btcd/btcutil/hdkeychain"
	"github.com/btcsuite/btcd/chaincfg"
	"github.com/ethereum/go-ethereum/crypto"
)

// TestAccountsDeriveFromTheMnemonic derives the ten accounts from the public test
// mnemonic (BIP-39 seed, BIP-32 path m/44'/60'/0'/0/i, as Hardhat and Anvil do)
// and compares them with the list Accounts returns.
func TestAccountsDeriveFromTheMnemonic(t *testing.T) {
	seed, err := pbkdf2.Key(sha512.New, "test test test test test test test test test test test junk", []byte("mnemonic"), 2048, 64)
	if err != nil {
		t.Fatal(err)
	}
	k, err := hdkeychain.NewMaster(seed, &chaincfg.MainNetParams)
	for _, i := range []uint32{44 + hdkeychain.HardenedKeyStart, 60 + hdkeychain.HardenedKeyStart, hdkeychain.HardenedKeyStart, 0} {
		if err == nil {
			k, err = k.Derive(i)
		}
	}
	if err != nil {
		t.Fatal(err)
	}
	got := Accounts()
	if len(got) != 10 {
		t.Fatalf("%d accounts, want 10", len(got))
	}
	for i, a := range got {
		child, err := k.Derive(uint32(i))
		if err != nil {
			t.Fatal(err)
		}
		priv, err := child.ECPrivKey()
		if err != nil {
			t.Fatal(err)
		}
		key, err := crypto.ToECDSA(priv.Serialize())
		if err != nil {
			t.Fatal(err)
		}
		if addr, hexKey := crypto.PubkeyToAddress(key.PublicKey).Hex(), hex.EncodeToString(crypto.FromECDSA(key)); a.Address != addr || a.PrivateKey != hexKey {
			t.Errorf("account %d is %s/%s, the mnemonic gives %s/%s", i, a.Address, a.PrivateKey, addr, hexKey)
		}
	}
}
