package chain_test

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"sync"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/chain"
)

// fakeChain is an in-memory chain behind the chain.Node interface, for the
// watcher's logic: blocks whose hashes say their height and branch, Transfer logs
// and native transfers in them, reorganisations, a lagging head, and a fault to
// inject. It keeps the blocks that left the chain and, like a real node, still
// answers logs by their hash.
type fakeChain struct {
	mu       sync.Mutex
	blocks   []*fakeBlock          // canonical, index = height
	byHash   map[string]*fakeBlock // every block ever mined, orphans included
	branch   int                   // bumps on every reorganisation
	lag      uint64                // the head is reported this many blocks low
	fault    error                 // returned by the next call, then cleared
	calls    map[string]int
	txByHash map[string]*fakeTx
}

type fakeBlock struct {
	ref       kassa.BlockRef
	transfers []kassa.Transfer
	txs       []chain.Tx
}

type fakeTx struct {
	token    string // "" native
	from, to string
	amount   *big.Int
}

func newFakeChain() *fakeChain {
	c := &fakeChain{byHash: map[string]*fakeBlock{}, calls: map[string]int{}, txByHash: map[string]*fakeTx{}}
	c.append()
	return c
}

func hash(kind string, parts ...any) string {
	s := fmt.Sprint(append([]any{kind}, parts...)...)
	return "0x" + fmt.Sprintf("%064x", new(big.Int).SetBytes(kassa.Keccak256([]byte(s))))
}

// append mines an empty block on the canonical chain; the caller holds mu or is alone.
func (c *fakeChain) append() *fakeBlock {
	n := uint64(len(c.blocks))
	parent := ""
	if n > 0 {
		parent = c.blocks[n-1].ref.Hash
	} else {
		parent = "0x" + fmt.Sprintf("%064x", 0)
	}
	b := &fakeBlock{ref: kassa.BlockRef{Number: n, Hash: hash("block", n, c.branch), Parent: parent}}
	c.blocks = append(c.blocks, b)
	c.byHash[b.ref.Hash] = b
	return b
}

// mine adds a block holding txs (each a transfer) and returns it.
func (c *fakeChain) mine(txs ...string) kassa.BlockRef {
	c.mu.Lock()
	defer c.mu.Unlock()
	b := c.append()
	for i, h := range txs {
		c.include(b, h, int64(i))
	}
	return b.ref
}

// include puts transaction h in block b at log index i.
func (c *fakeChain) include(b *fakeBlock, h string, i int64) {
	tx := c.txByHash[h]
	if tx.token == "" {
		b.txs = append(b.txs, chain.Tx{Hash: h, Block: b.ref, From: tx.from, To: tx.to, Value: tx.amount, Succeeded: true})
		return
	}
	b.transfers = append(b.transfers, kassa.Transfer{TxHash: h, LogIndex: i, Block: b.ref, TokenAddress: tx.token,
		From: tx.from, To: tx.to, Amount: tx.amount})
}

// tx registers a transfer of amount (token "" = native) to to and returns its hash.
func (c *fakeChain) tx(token, to string, amount int64) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	h := hash("tx", len(c.txByHash), token, to, amount)
	tx := &fakeTx{from: "0x00000000000000000000000000000000000000aa", to: lowerHex(to), amount: big.NewInt(amount)}
	if token != "" {
		tx.token = lowerHex(token)
	}
	c.txByHash[h] = tx
	return h
}

// mineEmpty adds n empty blocks.
func (c *fakeChain) mineEmpty(n int) {
	for range n {
		c.mine()
	}
}

// reorg replaces the last depth blocks with depth+1 new ones. With keep, the
// replaced blocks' transactions are mined again in the first new block, at other
// log indexes (shifted by one); without, they are gone.
func (c *fakeChain) reorg(depth int, keep bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	old := append([]*fakeBlock(nil), c.blocks[len(c.blocks)-depth:]...)
	c.blocks = c.blocks[:len(c.blocks)-depth]
	c.branch++
	first := c.append()
	if keep {
		i := int64(1)
		for _, b := range old {
			for _, t := range b.transfers {
				c.include(first, t.TxHash, i)
				i++
			}
			for _, t := range b.txs {
				c.include(first, t.Hash, i)
			}
		}
	}
	for range depth {
		c.append()
	}
}

func (c *fakeChain) enter(method string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.calls[method]++
	err := c.fault
	c.fault = nil
	return err
}

func (c *fakeChain) ChainID(context.Context) (int64, error) { return 1337, c.enter("chainId") }

func (c *fakeChain) Head(context.Context) (kassa.BlockRef, error) {
	if err := c.enter("head"); err != nil {
		return kassa.BlockRef{}, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	n := uint64(len(c.blocks)) - 1
	return c.blocks[n-min(n, c.lag)].ref, nil
}

func (c *fakeChain) Headers(ctx context.Context, from, to uint64) ([]kassa.BlockRef, error) {
	bs, err := c.Blocks(ctx, from, to)
	out := make([]kassa.BlockRef, len(bs))
	for i, b := range bs {
		out[i] = b.BlockRef
	}
	return out, err
}

func (c *fakeChain) Blocks(_ context.Context, from, to uint64) ([]chain.Block, error) {
	if err := c.enter("blocks"); err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []chain.Block
	for n := from; n <= to && n < uint64(len(c.blocks)); n++ {
		out = append(out, chain.Block{BlockRef: c.blocks[n].ref, Txs: c.blocks[n].txs})
	}
	return out, nil
}

func (c *fakeChain) Transfers(_ context.Context, q chain.LogQuery) ([]kassa.Transfer, error) {
	if err := c.enter("logs"); err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	var scan []*fakeBlock
	if q.BlockHash != "" {
		scan = append(scan, c.byHash[q.BlockHash]) // orphans too, as real nodes do
	} else {
		for n := q.From; n <= q.To && n < uint64(len(c.blocks)); n++ {
			scan = append(scan, c.blocks[n])
		}
	}
	var out []kassa.Transfer
	for _, b := range scan {
		for _, t := range b.transfers {
			if contains(q.Tokens, t.TokenAddress) && (len(q.Recipients) == 0 || contains(q.Recipients, t.To)) {
				out = append(out, t)
			}
		}
	}
	return out, nil
}

func (c *fakeChain) Transaction(_ context.Context, h string) (*chain.Tx, error) {
	if err := c.enter("tx"); err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, b := range c.blocks {
		for _, t := range b.transfers {
			if t.TxHash == h {
				return &chain.Tx{Hash: h, Block: b.ref, From: t.From, To: t.TokenAddress, Value: new(big.Int), Succeeded: true,
					Transfers: []kassa.Transfer{t}}, nil
			}
		}
		for _, t := range b.txs {
			if t.Hash == h {
				return &t, nil
			}
		}
	}
	return nil, chain.ErrNotFound
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if equalFold(x, s) {
			return true
		}
	}
	return false
}

func equalFold(a, b string) bool { return lowerHex(a) == lowerHex(b) }

// lowerHex is an address as nodes answer it: lower-case hex.
func lowerHex(s string) string { return strings.ToLower(s) }

// single is a Stepper of one node.
type single struct{ n chain.Node }

func (s single) Step(_ context.Context, fn func(chain.Node) error) error { return fn(s.n) }

var errFault = errors.New("injected fault")
