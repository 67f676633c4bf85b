package hdwallet

import (
	"fmt"
	"math/big"

	"kassa"
)

// PaymentURI returns the EIP-681 URI asking a wallet to pay units (base units: wei,
// or the token's smallest unit) of t to recipient on chain chainID:
//
//	ERC-20: ethereum:<contract>@<chainID>/transfer?address=<recipient>&uint256=<units>
//	native: ethereum:<recipient>@<chainID>?value=<units>
//
// Addresses come out EIP-55 checksummed and units as a plain decimal integer (no
// scientific notation). A malformed address, a negative amount, a chain id below 1
// or an unknown token type is an error.
func PaymentURI(t kassa.Token, chainID int64, recipient string, units *big.Int) (string, error) {
	if chainID < 1 {
		return "", fmt.Errorf("hdwallet: chain id %d is not positive", chainID)
	}
	if units == nil || units.Sign() < 0 {
		return "", fmt.Errorf("hdwallet: payment amount must be a non-negative integer")
	}
	if err := kassa.CheckEVMAddress("recipient", recipient); err != nil {
		return "", fmt.Errorf("hdwallet: %w", err)
	}
	to := kassa.ChecksumAddress(recipient)
	switch t.Type {
	case kassa.TokenERC20:
		if err := kassa.CheckEVMAddress("token address", t.Address); err != nil {
			return "", fmt.Errorf("hdwallet: token %d: %w", t.ID, err)
		}
		return fmt.Sprintf("ethereum:%s@%d/transfer?address=%s&uint256=%s",
			kassa.ChecksumAddress(t.Address), chainID, to, units.String()), nil
	case kassa.TokenNative:
		return fmt.Sprintf("ethereum:%s@%d?value=%s", to, chainID, units.String()), nil
	default:
		return "", fmt.Errorf("hdwallet: token %d has unknown type %q", t.ID, t.Type)
	}
}
