package devchain

import (
	"errors"
	"fmt"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/types"
)

// errClosed is returned by the methods of a closed Chain.
var errClosed = errors.New("devchain: chain is closed")

// maxBlocksPerWake bounds the blocks mined for one wake-up of the
// on-transaction miner, in case the pool keeps transactions the block builder
// will not take (e.g. a tip below the miner's minimum).
const maxBlocksPerWake = 64

// startMining starts the goroutines that mine: every BlockTime, or, with
// BlockTime 0, whenever the transaction pool announces new transactions.
func (c *Chain) startMining() {
	if c.cfg.BlockTime > 0 {
		c.wg.Add(1)
		go c.mineEvery(c.cfg.BlockTime)
		return
	}
	// Pool announcements are drained at once into a one-slot wake-up signal:
	// the pool blocks while it announces, and mining waits on the pool.
	wake := make(chan struct{}, 1)
	txs := make(chan core.NewTxsEvent, 16)
	sub := c.backend.TxPool().SubscribeTransactions(txs, true)
	c.wg.Add(2)
	go func() {
		defer c.wg.Done()
		defer sub.Unsubscribe()
		for {
			select {
			case <-c.stop:
				return
			case <-sub.Err():
				return
			case <-txs:
				select {
				case wake <- struct{}{}:
				default:
				}
			}
		}
	}()
	go func() {
		defer c.wg.Done()
		for {
			select {
			case <-c.stop:
				return
			case <-wake:
				c.mu.Lock()
				if !c.closed {
					if err := c.minePending(); err != nil {
						c.log.Warn("devchain: mining pending transactions", "err", err)
					}
				}
				c.mu.Unlock()
			}
		}
	}()
}

// mineEvery mines a block every period, with or without transactions.
func (c *Chain) mineEvery(period time.Duration) {
	defer c.wg.Done()
	ticker := time.NewTicker(period)
	defer ticker.Stop()
	for {
		select {
		case <-c.stop:
			return
		case <-ticker.C:
			c.mu.Lock()
			if !c.closed {
				if _, err := c.seal(); err != nil {
					c.log.Warn("devchain: mining a block", "err", err)
				}
			}
			c.mu.Unlock()
		}
	}
}

// minePending mines blocks until the pool holds no executable transaction.
// The caller holds mu.
func (c *Chain) minePending() error {
	pool := c.backend.TxPool()
	for range maxBlocksPerWake {
		if err := pool.Sync(); err != nil {
			return err
		}
		if executable, _ := pool.Stats(); executable == 0 {
			return nil
		}
		head, err := c.seal()
		if err != nil {
			return err
		}
		if head.TxHash == types.EmptyTxsHash {
			return nil // the builder took none of them; a later block may
		}
	}
	return nil
}

// seal mines one block on the current head and makes it durable. The caller
// holds mu.
func (c *Chain) seal() (*types.Header, error) {
	chain := c.backend.BlockChain()
	parent := chain.CurrentBlock()
	c.beacon.Commit() // logs its own failure as a warning
	head := chain.CurrentBlock()
	if head.ParentHash != parent.Hash() {
		return nil, fmt.Errorf("devchain: no block was sealed on block %d (see the warnings)", parent.Number)
	}
	c.awaitIndex() // before persist, so the indexer's progress is flushed too
	if err := c.persist(); err != nil {
		return nil, err
	}
	return head, nil
}

// maxIndexWait bounds how long awaitIndex waits for the transaction indexer.
const maxIndexWait = 2 * time.Second

// awaitIndex waits for go-ethereum's transaction indexer to finish its first
// pass, which starts with the first block mined on a fresh data dir (or the first
// after a restart). Until it has, the node answers a look-up of any transaction it
// cannot find (eth_getTransactionReceipt, eth_getTransactionByHash) with the error
// "transaction indexing is in progress" instead of none. After that pass the
// look-ups of a new head are written with it, so the wait ends at once. At
// genesis the indexer does not run, so there is nothing to wait for. The caller
// holds mu.
func (c *Chain) awaitIndex() {
	chain := c.backend.BlockChain()
	if chain.CurrentBlock().Number.Sign() == 0 {
		return
	}
	for deadline := time.Now().Add(maxIndexWait); !chain.TxIndexDone(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			c.log.Warn("devchain: the transaction indexer's first pass is still running", "waited", maxIndexWait)
			return
		}
	}
}

// persist flushes the database's write-ahead log to disk. Without it the
// newest writes can sit in the database's in-process buffer, and a kill -9
// loses the last blocks.
func (c *Chain) persist() error {
	if err := c.backend.ChainDb().SyncKeyValue(); err != nil {
		return fmt.Errorf("devchain: syncing the database: %w", err)
	}
	return nil
}

// Mine mines one block now, with whatever transactions are pending (evm_mine).
func (c *Chain) Mine() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return errClosed
	}
	_, err := c.seal()
	return err
}

// Snapshot records the current head and returns its id, e.g. "0x1", for
// Revert (evm_snapshot). Ids live as long as the Chain value.
func (c *Chain) Snapshot() (string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return "", errClosed
	}
	c.lastSnap++
	c.snapshots[c.lastSnap] = c.backend.BlockChain().CurrentBlock().Hash()
	return hexutil.EncodeUint64(c.lastSnap), nil
}

// Revert makes the head of snapshot id the head again (evm_revert): the
// blocks after it leave the chain, their transactions and any pending ones are
// dropped, and the next blocks mined form the canonical chain. As on Hardhat,
// the snapshot and every later one are used up. It reports false for an
// unknown (or used) id.
func (c *Chain) Revert(id string) (bool, error) {
	n, err := hexutil.DecodeUint64(id)
	if err != nil {
		return false, fmt.Errorf("devchain: snapshot id %q: %w", id, err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return false, errClosed
	}
	hash, ok := c.snapshots[n]
	if !ok {
		return false, nil
	}
	for k := range c.snapshots {
		if k >= n {
			delete(c.snapshots, k)
		}
	}
	if err := c.setHead(hash, false); err != nil {
		return false, err
	}
	return true, nil
}

// ReorgTo makes block parentHash the head, as a reorganisation would: the
// canonical blocks after it leave the chain and the next block mined is its
// child. With keepTxs the transactions of the orphaned blocks go back to the
// pool and are mined again, in other blocks (with BlockTime 0 before ReorgTo
// returns); go-ethereum re-injects them only for reorganisations of at most 64
// blocks. Without keepTxs they are dropped, and so is every other pending
// transaction.
func (c *Chain) ReorgTo(parentHash string, keepTxs bool) error {
	b, err := hexutil.Decode(parentHash)
	if err != nil || len(b) != common.HashLength {
		return fmt.Errorf("devchain: block hash %q is not 32 hex bytes", parentHash)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return errClosed
	}
	if err := c.setHead(common.BytesToHash(b), keepTxs); err != nil {
		return err
	}
	if keepTxs && c.cfg.BlockTime == 0 {
		return c.minePending()
	}
	return nil
}

// setHead makes block hash the canonical head and waits for the pool to take
// it in; unless keepTxs it then empties the pool, dropping the transactions
// the pool re-injected from the blocks that left the chain. The caller holds
// mu.
func (c *Chain) setHead(hash common.Hash, keepTxs bool) error {
	chain, pool := c.backend.BlockChain(), c.backend.TxPool()
	block := chain.GetBlockByHash(hash)
	if block == nil {
		return fmt.Errorf("devchain: unknown block %s", hash)
	}
	if !keepTxs {
		pool.Clear()
	}
	if block.Hash() != chain.CurrentBlock().Hash() {
		if _, err := chain.SetCanonical(block); err != nil {
			return fmt.Errorf("devchain: setting head to block %d %s: %w", block.NumberU64(), hash, err)
		}
	}
	// The pool resets to the new head on its own goroutine. A Sync can be
	// answered by a reset started before the head event was read; the second
	// one waits for the reset to the new head.
	for range 2 {
		if err := pool.Sync(); err != nil {
			return err
		}
	}
	if !keepTxs {
		pool.Clear()
	}
	c.awaitIndex()
	return c.persist()
}
