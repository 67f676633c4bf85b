package hdwallet

import (
	"encoding/hex"
	"strings"
	"testing"

	"github.com/btcsuite/btcd/btcec/v2"

	"github.com/kassapay/kassa"
)

// TestKeysMatchAddresses checks that each key signs for the address derived
// beside it: a deposit key for its deposit address, the gas key for the gas
// address; and that the gas wallet is none of the deposit addresses.
func TestKeysMatchAddresses(t *testing.T) {
	w := testWallet(t)
	net := kassa.Network{Name: "devchain", Environment: kassa.Devnet, DerivationIndex: 4}
	for _, index := range []uint32{0, 1, 77, MaxIndex} {
		key, err := w.DepositKey(net, index)
		if err != nil {
			t.Fatal(err)
		}
		want, err := w.Address(net, index)
		if err != nil {
			t.Fatal(err)
		}
		if got := addressOf(t, key); got != want {
			t.Errorf("index %d: key signs for %s, address is %s", index, got, want)
		}
	}
	gas, err := w.GasKey(net)
	if err != nil {
		t.Fatal(err)
	}
	gasAddr, err := w.GasAddress(net)
	if err != nil {
		t.Fatal(err)
	}
	if got := addressOf(t, gas); got != gasAddr {
		t.Errorf("gas key signs for %s, gas address is %s", got, gasAddr)
	}
	for index := uint32(0); index < 5; index++ {
		if a, _ := w.Address(net, index); strings.EqualFold(a, gasAddr) {
			t.Errorf("gas wallet %s is deposit address %d", gasAddr, index)
		}
	}
	other := net
	other.DerivationIndex = 5
	if a, _ := w.GasAddress(other); a == gasAddr {
		t.Errorf("two networks share the gas wallet %s", a)
	}
}

func TestKeysRefuseOtherEnvironment(t *testing.T) {
	w := testWallet(t)
	main := kassa.Network{Name: "bsc", Environment: kassa.Mainnet, DerivationIndex: 1}
	if _, err := w.GasKey(main); err == nil {
		t.Error("a devnet wallet gave a mainnet gas key")
	}
	if _, err := w.DepositKey(main, 0); err == nil {
		t.Error("a devnet wallet gave a mainnet deposit key")
	}
	if _, err := w.DepositKey(kassa.Network{Environment: kassa.Devnet}, MaxIndex+1); err == nil {
		t.Error("index 2^31 gave a key")
	}
}

func testWallet(t *testing.T) *Wallet {
	t.Helper()
	w, err := fromSeed(kassa.Devnet, []byte("kassa hdwallet keys test seed 0123456789"))
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func addressOf(t *testing.T, key []byte) string {
	t.Helper()
	if len(key) != 32 {
		t.Fatalf("key of %d bytes", len(key))
	}
	_, pub := btcec.PrivKeyFromBytes(key)
	h := kassa.Keccak256(pub.SerializeUncompressed()[1:])
	return kassa.ChecksumAddress("0x" + hex.EncodeToString(h[12:]))
}
