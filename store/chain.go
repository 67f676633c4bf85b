package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/watch"
)

// ChainCursor returns network's cursor; nil before its first block.
func (db *DB) ChainCursor(ctx context.Context, network string) (*watch.Cursor, error) {
	if !storable(network) {
		return nil, nil
	}
	c := watch.Cursor{Network: network}
	var number int64
	err := db.r.QueryRowContext(ctx, "SELECT genesis, number, hash, parent FROM chain_cursors WHERE network = $1", network).
		Scan(&c.Genesis, &number, &c.Block.Hash, &c.Block.Parent)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("store: chain cursor: %w", err)
	}
	c.Block.Number = uint64(number)
	return &c, nil
}

// ChainBlocks returns the blocks remembered for network from height from on,
// ascending.
func (db *DB) ChainBlocks(ctx context.Context, network string, from uint64) ([]kassa.BlockRef, error) {
	if !storable(network) || from > math.MaxInt64 {
		return nil, nil
	}
	rows, err := db.r.QueryContext(ctx, "SELECT number, hash, parent FROM chain_blocks WHERE network = $1 AND number >= $2 ORDER BY number",
		network, int64(from))
	if err != nil {
		return nil, fmt.Errorf("store: chain blocks: %w", err)
	}
	defer rows.Close()
	var out []kassa.BlockRef
	for rows.Next() {
		var (
			b      kassa.BlockRef
			number int64
		)
		if err := rows.Scan(&number, &b.Hash, &b.Parent); err != nil {
			return nil, fmt.Errorf("store: chain blocks: %w", err)
		}
		b.Number = uint64(number)
		out = append(out, b)
	}
	return out, rows.Err()
}

// AdvanceChain records processed blocks and moves network's cursor to the last, in
// one transaction: a block already remembered at a height is replaced, blocks more
// than keep below the new cursor are forgotten, and so are any above it (the
// cursor is the highest block remembered). No events are written: the commit
// wakes no follower. Blocks must ascend strictly; none records nothing.
func (db *DB) AdvanceChain(ctx context.Context, network, genesis string, blocks []kassa.BlockRef, keep int) error {
	if len(blocks) == 0 {
		return nil
	}
	if !storable(network) || network == "" || !storable(genesis) {
		return fmt.Errorf("store: advance chain: bad network %q or genesis %q", network, genesis)
	}
	for i, b := range blocks {
		if b.Number > math.MaxInt64 || !storable(b.Hash) || !storable(b.Parent) || (i > 0 && b.Number <= blocks[i-1].Number) {
			return fmt.Errorf("store: advance chain %s: blocks must ascend (block %d at %d)", network, b.Number, i)
		}
	}
	last := blocks[len(blocks)-1]
	floor := int64(last.Number) - int64(max(keep, 0))
	return db.quietTx(ctx, func(tx txq) (bool, error) {
		for _, b := range blocks {
			if _, err := tx.ExecContext(ctx, `INSERT INTO chain_blocks (network, number, hash, parent) VALUES ($1, $2, $3, $4)
				ON CONFLICT (network, number) DO UPDATE SET hash = excluded.hash, parent = excluded.parent`,
				network, int64(b.Number), b.Hash, b.Parent); err != nil {
				return false, fmt.Errorf("store: record block: %w", err)
			}
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO chain_cursors (network, genesis, number, hash, parent, updated_at)
			VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (network) DO UPDATE SET genesis = excluded.genesis,
			number = excluded.number, hash = excluded.hash, parent = excluded.parent, updated_at = excluded.updated_at`,
			network, genesis, int64(last.Number), last.Hash, last.Parent, micros(db.clock())); err != nil {
			return false, fmt.Errorf("store: move chain cursor: %w", err)
		}
		if _, err := tx.ExecContext(ctx, "DELETE FROM chain_blocks WHERE network = $1 AND (number < $2 OR number > $3)",
			network, floor, int64(last.Number)); err != nil {
			return false, fmt.Errorf("store: forget blocks: %w", err)
		}
		return false, nil
	})
}

// RewindChain handles a reorganisation of network back to ancestor, in one
// transaction: blocks above it are forgotten, the cursor (if any) moves to it, and
// every receipt of network recorded in a block above it is detached
// (detachReceipts), and so is every own-wallet refund's transfer
// (detachOwnWalletRefunds). It returns the receipts it changed.
func (db *DB) RewindChain(ctx context.Context, network string, ancestor kassa.BlockRef) ([]*kassa.Payment, error) {
	if !storable(network) || ancestor.Number > math.MaxInt64 || !storable(ancestor.Hash) || !storable(ancestor.Parent) {
		return nil, fmt.Errorf("store: rewind chain: bad network %q or ancestor %d", network, ancestor.Number)
	}
	var changed []*kassa.Payment
	err := db.quietTx(ctx, func(tx txq) (bool, error) {
		changed = nil
		if _, err := tx.ExecContext(ctx, "DELETE FROM chain_blocks WHERE network = $1 AND number > $2",
			network, int64(ancestor.Number)); err != nil {
			return false, fmt.Errorf("store: rewind blocks: %w", err)
		}
		if _, err := tx.ExecContext(ctx, `UPDATE chain_cursors SET number = $1, hash = $2, parent = $3, updated_at = $4
			WHERE network = $5`, int64(ancestor.Number), ancestor.Hash, ancestor.Parent, micros(db.clock()), network); err != nil {
			return false, fmt.Errorf("store: rewind cursor: %w", err)
		}
		var err error
		if changed, err = db.detachReceipts(ctx, tx, network, ancestor.Number); err != nil {
			return false, err
		}
		refunds, err := db.detachOwnWalletRefunds(ctx, tx, network, ancestor.Number)
		return len(changed) > 0 || refunds, err
	})
	if err != nil {
		return nil, err
	}
	return changed, nil
}

// ResetChain forgets network's cursor and blocks (the chain was replaced) and
// detaches every receipt of network recorded in a canonical block, in one
// transaction. It returns the receipts it changed.
func (db *DB) ResetChain(ctx context.Context, network string) ([]*kassa.Payment, error) {
	if !storable(network) {
		return nil, fmt.Errorf("store: reset chain: bad network %q", network)
	}
	var changed []*kassa.Payment
	err := db.quietTx(ctx, func(tx txq) (bool, error) {
		changed = nil
		for _, table := range []string{"chain_cursors", "chain_blocks"} {
			if _, err := tx.ExecContext(ctx, "DELETE FROM "+table+" WHERE network = $1", network); err != nil {
				return false, fmt.Errorf("store: reset %s: %w", table, err)
			}
		}
		var err error
		if changed, err = db.detachReceipts(ctx, tx, network, 0); err != nil {
			return false, err
		}
		refunds, err := db.detachOwnWalletRefunds(ctx, tx, network, 0)
		return len(changed) > 0 || refunds, err
	})
	if err != nil {
		return nil, err
	}
	return changed, nil
}

// quietTx runs fn in a write transaction whose own rows (cursors, blocks) no
// follower reads: its commit wakes the followers (Commits) only when fn reports
// that it also wrote events.
func (db *DB) quietTx(ctx context.Context, fn func(tx txq) (events bool, err error)) error {
	var events bool
	notes := db.newNotes()
	did, err := db.runTx(ctx, notes, nil, func(tx txq) error {
		var err error
		events, err = fn(tx)
		return err
	})
	if err == nil {
		db.committed(done{data: events, deliveries: did.deliveries})
		db.report(notes)
	}
	return err
}
