package hdwallet

import (
	"fmt"

	"github.com/btcsuite/btcd/btcutil/hdkeychain"

	"github.com/kassapay/kassa"
)

// Signing keys. Deposit addresses sign their sweeps with the key at
// m/44'/60'/d'/0/index; each network's gas wallet, which tops deposit addresses up
// with gas and pays refunds, is m/44'/60'/d'/1/0 (BIP-44's internal chain, index
// 0), d being the network's DerivationIndex. Both come from the one master key:
// whoever holds it can move every address's money, and without it nothing can.

// internalChg is BIP-44's internal ("change") chain: Kassa's own addresses.
const internalChg = 1

var _ kassa.KeyRing = (*Wallet)(nil)

// DepositKey returns the private key of deposit address index of network (32
// bytes). The caller must not keep, log or return it.
func (w *Wallet) DepositKey(network kassa.Network, index uint32) ([]byte, error) {
	if index > MaxIndex {
		return nil, fmt.Errorf("hdwallet: address index %d is not below 2^31", index)
	}
	return w.privateKey(network, externalChg, index)
}

// GasKey returns the private key of network's gas wallet (32 bytes).
func (w *Wallet) GasKey(network kassa.Network) ([]byte, error) {
	return w.privateKey(network, internalChg, 0)
}

// GasAddress returns the EIP-55 address of network's gas wallet.
func (w *Wallet) GasAddress(network kassa.Network) (string, error) {
	k, err := w.derive(network, internalChg, 0)
	if err != nil {
		return "", err
	}
	pub, err := k.ECPubKey()
	if err != nil {
		return "", fmt.Errorf("hdwallet: gas wallet public key: %w", err)
	}
	return evmAddress(pub), nil
}

// privateKey derives m/44'/60'/d'/change/index and returns its 32-byte scalar.
func (w *Wallet) privateKey(network kassa.Network, change, index uint32) ([]byte, error) {
	k, err := w.derive(network, change, index)
	if err != nil {
		return nil, err
	}
	priv, err := k.ECPrivKey()
	if err != nil {
		return nil, fmt.Errorf("hdwallet: private key of network %s: %w", network.Name, err)
	}
	return priv.Serialize(), nil
}

// derive returns the private extended key m/44'/60'/d'/change/index of network.
func (w *Wallet) derive(network kassa.Network, change, index uint32) (*hdkeychain.ExtendedKey, error) {
	if network.Environment != w.env {
		return nil, fmt.Errorf("hdwallet: network %s belongs to %s, not to this %s wallet", network.Name, network.Environment, w.env)
	}
	if network.DerivationIndex > MaxIndex {
		return nil, fmt.Errorf("hdwallet: derivation index %d is not below 2^31", network.DerivationIndex)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	k, err := derivePath(w.master, purpose+hardened, coinTypeETH+hardened, network.DerivationIndex+hardened, change, index)
	if err != nil {
		return nil, fmt.Errorf("hdwallet: derive a key of network %s: %w", network.Name, err)
	}
	return k, nil
}
