package hdwallet

import (
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
	return kassa.PaymentURI(t, chainID, recipient, units)
}
