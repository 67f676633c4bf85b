package hdwallet

import (
	"crypto/pbkdf2"
	"crypto/sha512"
	"encoding/hex"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/kassapay/kassa"
)

// mnemonicSeedHex is the BIP-39 seed of the standard test mnemonic
// "abandon ×11 about" with an empty passphrase.
const mnemonicSeedHex = "5eb00bbddcf069084889a8ab9155568165f5c453ccb85e70811aaed6f6da5fc19a5ac40b389cd370d086206dec8aa6c43daea6690f20ad3d8d48b2d2ce9e38e4"

// mustHex decodes a hex constant of a test.
func mustHex(t *testing.T, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// mnemonicWallet returns the devnet wallet of the standard test mnemonic, whose seed
// it recomputes with BIP-39's PBKDF2-HMAC-SHA512 (2048 rounds, salt "mnemonic").
func mnemonicWallet(t *testing.T) *Wallet {
	t.Helper()
	mnemonic := strings.Repeat("abandon ", 11) + "about"
	seed, err := pbkdf2.Key(sha512.New, mnemonic, []byte("mnemonic"), 2048, 64)
	if err != nil {
		t.Fatal(err)
	}
	if got := hex.EncodeToString(seed); got != mnemonicSeedHex {
		t.Fatalf("BIP-39 seed = %s, want %s", got, mnemonicSeedHex)
	}
	w, err := fromSeed(kassa.Devnet, seed)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// network returns a network of env with the given derivation index.
func network(env kassa.Environment, name string, idx uint32) kassa.Network {
	return kassa.Network{Name: name, Environment: env, ChainID: 97, DerivationIndex: idx}
}

// TestBIP32Vectors checks master key generation and derivation against test vectors
// 1 and 3 of BIP-32 (vector 3 covers private keys with leading zero bytes).
func TestBIP32Vectors(t *testing.T) {
	const (
		seed1 = "000102030405060708090a0b0c0d0e0f"
		seed3 = "4b381541583be4423346c643850da4b320e46a87ae3d2a4e6da11eba819cd4acba45d239319ac14f863b8d5ab5a0d0c64d2e8a1e7d1457df2e5a3c51c73235be"
		h     = hardened
	)
	tests := []struct {
		name string
		seed string
		path []uint32
		want string
	}{
		{"1 m", seed1, nil, "xprv9s21ZrQH143K3QTDL4LXw2F7HEK3wJUD2nW2nRk4stbPy6cq3jPPqjiChkVvvNKmPGJxWUtg6LnF5kejMRNNU3TGtRBeJgk33yuGBxrMPHi"},
		{"1 m/0H", seed1, []uint32{h}, "xprv9uHRZZhk6KAJC1avXpDAp4MDc3sQKNxDiPvvkX8Br5ngLNv1TxvUxt4cV1rGL5hj6KCesnDYUhd7oWgT11eZG7XnxHrnYeSvkzY7d2bhkJ7"},
		{"1 m/0H/1/2H/2/1000000000", seed1, []uint32{h, 1, h + 2, 2, 1000000000}, "xprvA41z7zogVVwxVSgdKUHDy1SKmdb533PjDz7J6N6mV6uS3ze1ai8FHa8kmHScGpWmj4WggLyQjgPie1rFSruoUihUZREPSL39UNdE3BBDu76"},
		{"3 m", seed3, nil, "xprv9s21ZrQH143K25QhxbucbDDuQ4naNntJRi4KUfWT7xo4EKsHt2QJDu7KXp1A3u7Bi1j8ph3EGsZ9Xvz9dGuVrtHHs7pXeTzjuxBrCmmhgC6"},
		{"3 m/0H", seed3, []uint32{h}, "xprv9uPDJpEQgRQfDcW7BkF7eTya6RPxXeJCqCJGHuCJ4GiRVLzkTXBAJMu2qaMWPrS7AANYqdq6vcBcBUdJCVVFceUvJFjaPdGZ2y9WACViL4L"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w, err := fromSeed(kassa.Devnet, mustHex(t, tt.seed))
			if err != nil {
				t.Fatal(err)
			}
			k, err := derivePath(w.master, tt.path...)
			if err != nil {
				t.Fatal(err)
			}
			if got := k.String(); got != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
}

// TestAddressKnownVector checks the Ethereum path m/44'/60'/0'/0/i against the
// addresses every BIP-44 wallet shows for the standard test mnemonic.
func TestAddressKnownVector(t *testing.T) {
	w := mnemonicWallet(t)
	tests := []struct {
		index uint32
		want  string
	}{
		{0, "0x9858EfFD232B4033E47d90003D41EC34EcaEda94"},
		{1, "0x6Fac4D18c912343BF86fa7049364Dd4E424Ab9C0"},
	}
	for _, tt := range tests {
		got, err := w.Address(network(kassa.Devnet, "bsc-testnet", 0), tt.index)
		if err != nil {
			t.Fatal(err)
		}
		if got != tt.want {
			t.Errorf("Address(account 0, %d) = %s, want %s", tt.index, got, tt.want)
		}
	}
}

// TestAddressPublicMatchesPrivate checks that deriving the last step from the cached
// public key gives the address of the full private derivation.
func TestAddressPublicMatchesPrivate(t *testing.T) {
	w := mnemonicWallet(t)
	for _, c := range []struct{ account, index uint32 }{{0, 0}, {3, 7}, {1, MaxIndex}, {MaxIndex, 12345}} {
		got, err := w.Address(network(kassa.Devnet, "n", c.account), c.index)
		if err != nil {
			t.Fatal(err)
		}
		k, err := derivePath(w.master, 44+hardened, 60+hardened, c.account+hardened, 0, c.index)
		if err != nil {
			t.Fatal(err)
		}
		pub, err := k.ECPubKey()
		if err != nil {
			t.Fatal(err)
		}
		if want := evmAddress(pub); got != want {
			t.Errorf("account %d index %d: public derivation %s, private %s", c.account, c.index, got, want)
		}
	}
}

// TestAddressDistinct checks that every (network, index) pair gets its own address,
// the same one on every call, also when called from many goroutines at once.
func TestAddressDistinct(t *testing.T) {
	w := mnemonicWallet(t)
	const accounts, indexes = 4, 25
	seen := map[string]string{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for a := range uint32(accounts) {
		for i := range uint32(indexes) {
			wg.Go(func() {
				n := network(kassa.Devnet, fmt.Sprint("net", a), a)
				first, err1 := w.Address(n, i)
				again, err2 := w.Address(n, i)
				if err1 != nil || err2 != nil || first != again {
					t.Errorf("%d/%d: %s %v, then %s %v", a, i, first, err1, again, err2)
				}
				if err := kassa.CheckEVMAddress("address", first); err != nil {
					t.Errorf("%d/%d: %s: %v", a, i, first, err)
				}
				mu.Lock()
				defer mu.Unlock()
				if prev, dup := seen[first]; dup {
					t.Errorf("%d/%d repeats the address of %s", a, i, prev)
				}
				seen[first] = fmt.Sprintf("%d/%d", a, i)
			})
		}
	}
	wg.Wait()
	if len(seen) != accounts*indexes {
		t.Errorf("%d distinct addresses, want %d", len(seen), accounts*indexes)
	}
}

// TestAddressRejects checks the arguments Address refuses.
func TestAddressRejects(t *testing.T) {
	w := mnemonicWallet(t)
	tests := []struct {
		name    string
		network kassa.Network
		index   uint32
	}{
		{"index 2^31", network(kassa.Devnet, "n", 0), 1 << 31},
		{"index 2^32-1", network(kassa.Devnet, "n", 0), 1<<32 - 1},
		{"derivation index 2^31", network(kassa.Devnet, "n", 1<<31), 0},
		{"other environment", network(kassa.Mainnet, "bsc", 0), 0},
	}
	for _, tt := range tests {
		if got, err := w.Address(tt.network, tt.index); err == nil {
			t.Errorf("%s: got %s, want an error", tt.name, got)
		}
	}
}
