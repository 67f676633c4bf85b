// Package hdwallet derives Kassa's deposit addresses: one per invoice and network,
// computed deterministically (BIP-32, BIP-44 layout) from one master extended private
// key per environment. The key lives outside the database, in a file of the data dir
// or an environment variable, so a restored database plus the key finds every address
// again. The package also builds EIP-681 payment URIs for those addresses.
//
// The master key is a secret: nothing here logs it, and a Wallet prints only its
// environment and the key's public BIP-32 fingerprint.
package hdwallet

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/btcsuite/btcd/btcec/v2"
	"github.com/btcsuite/btcd/btcutil"
	"github.com/btcsuite/btcd/btcutil/hdkeychain"
	"github.com/btcsuite/btcd/chaincfg"

	"github.com/kassapay/kassa"
)

// Derivation path constants: deposit addresses live at
// m/44'/60'/DerivationIndex'/0/index.
const (
	hardened    = hdkeychain.HardenedKeyStart
	purpose     = 44 // BIP-44
	coinTypeETH = 60 // SLIP-44 coin type of Ethereum, shared by EVM chains
	externalChg = 0  // BIP-44 "change" level: 0 is the external (receiving) chain
)

// MaxIndex is the largest address index: indexes are non-hardened, so below 2^31.
const MaxIndex = hardened - 1

// Wallet holds the master extended private key of one environment and derives its
// deposit addresses. It is safe for concurrent use.
type Wallet struct {
	env         kassa.Environment
	master      *hdkeychain.ExtendedKey // private, depth 0; only touched under mu
	fingerprint uint32                  // BIP-32 fingerprint of master, public

	mu sync.Mutex
	// chains caches the neutered (public) key m/44'/60'/d'/0 per DerivationIndex d;
	// public derivation from it reads the key without memoizing anything, so the
	// cached keys can be shared across goroutines without the lock.
	chains map[uint32]*hdkeychain.ExtendedKey
}

// Parse returns the Wallet of env from a BIP-32 master extended private key
// ("xprv…", depth 0), e.g. taken from KASSA_DEVNET_MASTER_KEY. Surrounding
// whitespace is ignored. Errors never quote the key.
func Parse(env kassa.Environment, xprv string) (*Wallet, error) {
	if !env.Valid() {
		return nil, fmt.Errorf("hdwallet: unknown environment %q", env)
	}
	k, err := hdkeychain.NewKeyFromString(strings.TrimSpace(xprv))
	if err != nil {
		return nil, fmt.Errorf("hdwallet: %s master key is not a valid BIP-32 extended key: %w", env, err)
	}
	switch {
	case !k.IsPrivate():
		return nil, fmt.Errorf("hdwallet: %s master key is a public key (xpub); a private key (xprv) is needed", env)
	case !k.IsForNet(&chaincfg.MainNetParams):
		return nil, fmt.Errorf("hdwallet: %s master key must be an xprv key", env)
	case k.Depth() != 0:
		return nil, fmt.Errorf("hdwallet: %s master key must be a master (depth 0) key, not one at depth %d", env, k.Depth())
	}
	return newWallet(env, k)
}

// fromSeed returns the Wallet of env whose master key BIP-32 derives from seed.
func fromSeed(env kassa.Environment, seed []byte) (*Wallet, error) {
	k, err := hdkeychain.NewMaster(seed, &chaincfg.MainNetParams)
	if err != nil {
		return nil, fmt.Errorf("hdwallet: master key from seed: %w", err)
	}
	return newWallet(env, k)
}

func newWallet(env kassa.Environment, master *hdkeychain.ExtendedKey) (*Wallet, error) {
	pub, err := master.ECPubKey()
	if err != nil {
		return nil, fmt.Errorf("hdwallet: master public key: %w", err)
	}
	fp := binary.BigEndian.Uint32(btcutil.Hash160(pub.SerializeCompressed())[:4])
	return &Wallet{env: env, master: master, fingerprint: fp, chains: map[uint32]*hdkeychain.ExtendedKey{}}, nil
}

// Environment returns the environment the wallet's key belongs to.
func (w *Wallet) Environment() kassa.Environment { return w.env }

// Fingerprint returns the BIP-32 fingerprint of the master key as 8 hex digits. It is
// public (every child key records it) and lets an operator check which key is loaded.
func (w *Wallet) Fingerprint() string { return fmt.Sprintf("%08x", w.fingerprint) }

// String describes the wallet without revealing its key.
func (w *Wallet) String() string {
	if w == nil {
		return "hdwallet.Wallet(nil)"
	}
	return fmt.Sprintf("hdwallet.Wallet{environment: %s, fingerprint: %s}", w.env, w.Fingerprint())
}

// GoString is String: %#v must not dump the key either.
func (w *Wallet) GoString() string { return w.String() }

// Format prints String for every fmt verb, so no verb (%d, say) falls back to
// printing the struct's fields.
func (w *Wallet) Format(f fmt.State, _ rune) { _, _ = io.WriteString(f, w.String()) }

// Address returns the EIP-55 checksummed deposit address number index of network,
// derived at m/44'/60'/network.DerivationIndex'/0/index. The same key, network and
// index always give the same address. index must be at most MaxIndex.
func (w *Wallet) Address(network kassa.Network, index uint32) (string, error) {
	if network.Environment != w.env {
		return "", fmt.Errorf("hdwallet: network %s belongs to %s, not to this %s wallet", network.Name, network.Environment, w.env)
	}
	if index > MaxIndex {
		return "", fmt.Errorf("hdwallet: address index %d is not below 2^31", index)
	}
	chain, err := w.chain(network.DerivationIndex)
	if err != nil {
		return "", err
	}
	child, err := chain.Derive(index)
	if err != nil {
		// ErrInvalidChild has a probability below 2^-127 per index.
		return "", fmt.Errorf("hdwallet: derive index %d of network %s: %w", index, network.Name, err)
	}
	pub, err := child.ECPubKey()
	if err != nil {
		return "", fmt.Errorf("hdwallet: public key of index %d: %w", index, err)
	}
	return evmAddress(pub), nil
}

// chain returns the public extended key m/44'/60'/account'/0, deriving it on first use.
func (w *Wallet) chain(account uint32) (*hdkeychain.ExtendedKey, error) {
	if account > MaxIndex {
		return nil, fmt.Errorf("hdwallet: derivation index %d is not below 2^31", account)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if k, ok := w.chains[account]; ok {
		return k, nil
	}
	priv, err := derivePath(w.master, purpose+hardened, coinTypeETH+hardened, account+hardened, externalChg)
	if err != nil {
		return nil, fmt.Errorf("hdwallet: derive m/44'/60'/%d'/0: %w", account, err)
	}
	pub, err := priv.Neuter()
	if err != nil {
		return nil, fmt.Errorf("hdwallet: neuter m/44'/60'/%d'/0: %w", account, err)
	}
	w.chains[account] = pub
	return pub, nil
}

// derivePath derives the BIP-32 child of k along path (hardened steps carry
// HardenedKeyStart). It uses the standard Derive, which keeps leading zero bytes of
// private keys (btcsuite issue 172), so results match other BIP-32 wallets.
func derivePath(k *hdkeychain.ExtendedKey, path ...uint32) (*hdkeychain.ExtendedKey, error) {
	for _, i := range path {
		next, err := k.Derive(i)
		if err != nil {
			return nil, err
		}
		k = next
	}
	return k, nil
}

// evmAddress is the Ethereum address of pub: the last 20 bytes of the Keccak-256 of
// the 64-byte uncompressed point X||Y, in EIP-55 checksummed form.
func evmAddress(pub *btcec.PublicKey) string {
	h := kassa.Keccak256(pub.SerializeUncompressed()[1:])
	return kassa.ChecksumAddress("0x" + hex.EncodeToString(h[12:]))
}
