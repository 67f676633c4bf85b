package kassa

import (
	"fmt"
	"math/big"
	"strings"
)

// FormatUnits renders an amount in a token's smallest unit as a decimal string in
// whole tokens, with no trailing fraction zeros and no trailing point:
// FormatUnits(12500000, 6) is "12.5", FormatUnits(1, 6) is "0.000001" and
// FormatUnits(3000000, 6) is "3". A nil amount is "0"; a negative amount gets a
// leading "-". decimals below zero are treated as zero.
func FormatUnits(units *big.Int, decimals int) string {
	if units == nil {
		return "0"
	}
	digits := new(big.Int).Abs(units).String()
	sign := ""
	if units.Sign() < 0 {
		sign = "-"
	}
	if decimals <= 0 {
		return sign + digits
	}
	if len(digits) <= decimals {
		digits = strings.Repeat("0", decimals-len(digits)+1) + digits
	}
	whole, frac := digits[:len(digits)-decimals], strings.TrimRight(digits[len(digits)-decimals:], "0")
	if frac == "" {
		return sign + whole
	}
	return sign + whole + "." + frac
}

// PaymentURI returns the EIP-681 URI asking a wallet to pay units (base units: wei,
// or the token's smallest unit) of t to recipient on chain chainID:
//
//	ERC-20: ethereum:<contract>@<chainID>/transfer?address=<recipient>&uint256=<units>
//	native: ethereum:<recipient>@<chainID>?value=<units>
//
// Addresses come out EIP-55 checksummed and units as a plain decimal integer (no
// scientific notation). A malformed address, a negative amount, a chain id below 1
// or an unknown token type is an error.
func PaymentURI(t Token, chainID int64, recipient string, units *big.Int) (string, error) {
	if chainID < 1 {
		return "", fmt.Errorf("payment uri: chain id %d is not positive", chainID)
	}
	if units == nil || units.Sign() < 0 {
		return "", fmt.Errorf("payment uri: payment amount must be a non-negative integer")
	}
	if err := CheckEVMAddress("recipient", recipient); err != nil {
		return "", fmt.Errorf("payment uri: %w", err)
	}
	to := ChecksumAddress(recipient)
	switch t.Type {
	case TokenERC20:
		if err := CheckEVMAddress("token address", t.Address); err != nil {
			return "", fmt.Errorf("payment uri: token %d: %w", t.ID, err)
		}
		return fmt.Sprintf("ethereum:%s@%d/transfer?address=%s&uint256=%s",
			ChecksumAddress(t.Address), chainID, to, units.String()), nil
	case TokenNative:
		return fmt.Sprintf("ethereum:%s@%d?value=%s", to, chainID, units.String()), nil
	default:
		return "", fmt.Errorf("payment uri: token %d has unknown type %q", t.ID, t.Type)
	}
}

// ParseUnits reads a token amount typed in whole tokens ("12.5", "0.000001",
// "3") exactly into base units of a token with decimals: FormatUnits' inverse.
// Only digits with at most one point; more fraction digits than the token has,
// more than 78 digits, or no digit at all is a *Error of KindInvalid (code
// invalid_amount, param). Zero is read as zero: whether it is enough is the
// caller's rule.
func ParseUnits(text string, decimals int, param string) (*big.Int, error) {
	bad := Invalidf(param, "invalid_amount", "%s must be a token amount such as 0.25.", param)
	whole, frac, _ := strings.Cut(text, ".")
	if !AllDigits(whole+frac) || len(whole)+len(frac) > 78 {
		return nil, bad
	}
	if decimals < 0 {
		decimals = 0
	}
	if len(frac) > decimals {
		return nil, Invalidf(param, "invalid_amount", "%s has more than the token's %d decimals.", param, decimals)
	}
	u, ok := new(big.Int).SetString(whole+frac+strings.Repeat("0", decimals-len(frac)), 10)
	if !ok {
		return nil, bad
	}
	return u, nil
}
