package chain

import (
	"context"
	"errors"
	"math/big"

	"github.com/kassapay/kassa"
)

// Node is one view of a chain: what the watcher asks a JSON-RPC endpoint. A step of
// the watcher uses one Node throughout (never two nodes' views of one block); the
// Pool hands it out (Pool.Step) and RPC implements it over HTTP. Hashes and
// addresses are 0x-prefixed lower-case hex. Every method is bounded by a timeout and
// checks the answer's shape: a malformed answer is an error, never a wrong value.
type Node interface {
	// ChainID returns the chain's EIP-155 id (eth_chainId).
	ChainID(ctx context.Context) (int64, error)
	// Head returns the latest block (eth_getBlockByNumber "latest").
	Head(ctx context.Context) (kassa.BlockRef, error)
	// Headers returns the blocks from..to (inclusive, ascending) in as few calls
	// as it can (JSON-RPC batches); it stops early, without error, at the first
	// block the node does not have.
	Headers(ctx context.Context, from, to uint64) ([]kassa.BlockRef, error)
	// Blocks is Headers with each block's transactions, for native transfers.
	Blocks(ctx context.Context, from, to uint64) ([]Block, error)
	// Transfers returns the ERC-20 Transfer logs of q, in block then log order,
	// halving the block range when the node answers that it is too large. Logs the
	// node marks removed are dropped.
	Transfers(ctx context.Context, q LogQuery) ([]kassa.Transfer, error)
	// Transaction returns a mined transaction with its receipt; ErrNotFound when
	// the node does not know it or it is not mined yet.
	Transaction(ctx context.Context, hash string) (*Tx, error)
}

// Block is a block with its transactions.
type Block struct {
	kassa.BlockRef
	Txs []Tx
}

// Tx is a transaction as the watcher needs it: a native transfer is To and Value;
// Transfers are the ERC-20 Transfer logs of its receipt (Transaction fills them;
// Blocks does not).
type Tx struct {
	Hash      string
	Block     kassa.BlockRef // Number and Hash (Parent may be empty)
	From, To  string         // To is "" for a contract creation
	Value     *big.Int
	Succeeded bool   // the receipt's status (Transaction only; Blocks: true)
	GasUsed   uint64 // the receipt's gas used (Transaction only)
	Transfers []kassa.Transfer
}

// LogQuery selects ERC-20 Transfer logs: of the Tokens' contracts, to one of
// Recipients (none: any recipient), either in the block range From..To or in the
// one block BlockHash.
type LogQuery struct {
	From, To   uint64
	BlockHash  string
	Tokens     []string
	Recipients []string
}

// ErrNotFound is what Node.Transaction answers for a transaction it does not have.
var ErrNotFound = errors.New("chain: not found")

// TransferTopic is the Keccak-256 of Transfer(address,address,uint256), topic 0 of
// every ERC-20 Transfer log.
const TransferTopic = "0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef"
