package kassa

import (
	"math/big"
	"time"
)

// Chain watching: blocks and the transfers found in them, as the watcher (package
// chain), the store and the refund rules share them (the watcher's cursor and
// watched addresses are package watch's). The rules are those of decisions.md,
// "Chains": a transfer in block B has
// head - B + 1 confirmations; blocks are checked by hash against their parents;
// money that is not on the canonical chain never counts as paid.

// NativeLogIndex is the log index of a native (coin) transfer, which has no log.
const NativeLogIndex = -1

// BlockRef names one block: its height, its hash and its parent's hash (hashes
// 0x-prefixed lower-case hex), and when it was made as a node answered it.
type BlockRef struct {
	Number uint64
	Hash   string
	Parent string
	// Time is the block's timestamp; zero when unknown (the store keeps none,
	// and a log names its block by number and hash only).
	Time time.Time
}

// Transfer is money moved to an address, as found in a block: an ERC-20 Transfer
// log (TokenAddress set) or a native transfer (TokenAddress "", LogIndex -1).
type Transfer struct {
	Network      string
	TxHash       string
	LogIndex     int64
	Block        BlockRef
	TokenAddress string // the ERC-20 contract, "" for the native coin
	From, To     string
	Amount       *big.Int // base units
}

// Confirmations is the confirmation count of a transfer in block at head:
// head - block + 1, and 0 when the head is below the block.
func Confirmations(head, block uint64) int {
	if block == 0 || head < block {
		return 0
	}
	return int(min(head-block+1, 1<<30))
}

// TokenMillis is the USD value, in millis rounded down, of units base units of a
// token with decimals decimals at usdPerToken: the credit a transfer earns. Rounded
// down, the inverse of TokenUnits never credits more than was paid.
func TokenMillis(units *big.Int, decimals int, usdPerToken *big.Rat) Millis {
	if units == nil || usdPerToken == nil || units.Sign() <= 0 || usdPerToken.Sign() <= 0 {
		return 0
	}
	// units / 10^d × p/q × 1000 = units × p × 1000 / (q × 10^d)
	num := new(big.Int).Mul(units, usdPerToken.Num())
	num.Mul(num, big.NewInt(1000))
	den := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(decimals)), nil)
	den.Mul(den, usdPerToken.Denom())
	q := num.Quo(num, den)
	if !q.IsInt64() {
		return Millis(1<<63 - 1)
	}
	return Millis(q.Int64())
}
