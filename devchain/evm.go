package devchain

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
)

// evmAPI serves the Hardhat/Anvil dev methods evm_mine, evm_snapshot and
// evm_revert.
type evmAPI struct{ c *Chain }

// Mine makes a block now; a timestamp argument is accepted and ignored.
func (a *evmAPI) Mine(_ *hexutil.Uint64) (string, error) { return "0x0", a.c.Mine() }

// Snapshot remembers the head and returns its id.
func (a *evmAPI) Snapshot() (string, error) { return a.c.Snapshot() }

// Revert goes back to a snapshot.
func (a *evmAPI) Revert(id string) (bool, error) { return a.c.Revert(id) }

// Snapshot remembers the current head and returns an id for Revert ("0x1", ...).
func (c *Chain) Snapshot() (string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.snapshots = append(c.snapshots, c.eth.BlockChain().CurrentBlock().Hash())
	return hexutil.EncodeUint64(uint64(len(c.snapshots))), nil
}

// Revert makes the snapshot's head the head again: later blocks and their
// transactions are dropped, and the next blocks mined are the canonical chain. As
// in Hardhat, the snapshot and every later one are used up; an unknown id answers
// false.
func (c *Chain) Revert(id string) (bool, error) {
	n, err := strconv.ParseUint(strings.TrimPrefix(id, "0x"), 16, 64)
	c.mu.Lock()
	defer c.mu.Unlock()
	if err != nil || n == 0 || n > uint64(len(c.snapshots)) {
		return false, nil
	}
	target := c.snapshots[n-1]
	c.snapshots = c.snapshots[:n-1]
	return true, c.rewind(target, false)
}

// ReorgTo makes the block with hash parentHash the head, as a reorganisation
// would: the blocks above it leave the chain. With keepTxs their transactions go
// back to the pool and are mined again in the next blocks (at other heights, in
// blocks with other hashes); without, they are gone.
func (c *Chain) ReorgTo(parentHash string, keepTxs bool) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.rewind(common.HexToHash(parentHash), keepTxs)
}

// rewind sets the head to target; c.mu is held.
func (c *Chain) rewind(target common.Hash, keepTxs bool) error {
	pool := c.eth.TxPool()
	if !keepTxs {
		pool.Clear()
	}
	if err := c.beacon.Fork(target); err != nil {
		return fmt.Errorf("devchain: rewind to %s: %w", target, err)
	}
	if err := pool.Sync(); err != nil { // the pool takes the dropped blocks' transactions back
		return err
	}
	if !keepTxs {
		pool.Clear()
	}
	if c.eth.BlockChain().CurrentBlock().Hash() != target {
		return errors.New("devchain: the head did not move")
	}
	return nil
}
