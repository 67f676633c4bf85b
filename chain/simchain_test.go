package chain

import (
	"context"
	"errors"
	"math/big"
	"slices"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
)

// TestSimulatedChain runs RPC and Pool against a real go-ethereum node.
func TestSimulatedChain(t *testing.T) {
	c := newSimChain(t)
	s := c.mine(t)
	ctx := context.Background()
	p, err := NewPool("devchain", 1337, []string{c.url}, PoolOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if err := p.Check(ctx); err != nil {
		t.Fatal(err)
	}
	lower := func(a common.Address) string { return strings.ToLower(a.Hex()) }
	sender := lower(c.from)

	t.Run("wrong chain id", func(t *testing.T) {
		q, err := NewPool("mainnet", 1, []string{c.url}, PoolOptions{})
		if err != nil {
			t.Fatal(err)
		}
		defer q.Close()
		var ce *ChainIDError
		if err := q.Check(ctx); !errors.As(err, &ce) || ce.Got != 1337 || ce.Want != 1 {
			t.Fatalf("Check: %v", err)
		}
	})

	var head uint64
	t.Run("headers", func(t *testing.T) {
		err := p.Step(ctx, func(n Node) error {
			h, err := n.Head(ctx)
			if err != nil {
				return err
			}
			head = h.Number
			refs, err := n.Headers(ctx, 0, h.Number+5)
			if err != nil {
				return err
			}
			if len(refs) != int(h.Number)+1 || refs[len(refs)-1] != h {
				t.Errorf("headers %v, head %v", refs, h)
			}
			for i, r := range refs {
				want, err := c.Client().HeaderByNumber(ctx, new(big.Int).SetUint64(r.Number))
				if err != nil || r.Hash != want.Hash().Hex() || r.Parent != want.ParentHash.Hex() || r.Number != uint64(i) {
					t.Errorf("header %d: %+v, want %v (%v)", i, r, want.Hash(), err)
				}
			}
			return nil
		})
		if err != nil || head != 3 {
			t.Fatalf("head %d, %v", head, err)
		}
	})

	t.Run("blocks", func(t *testing.T) {
		blocks, err := p.Node().Blocks(ctx, 1, 3)
		if err != nil || len(blocks) != 3 {
			t.Fatalf("blocks %v, %v", blocks, err)
		}
		tx := blocks[0].Txs[0]
		if len(blocks[0].Txs) != 1 || tx.Hash != s.native.Hex() || tx.From != sender || tx.To != lower(s.alice) ||
			tx.Value.Cmp(big.NewInt(1e18)) != 0 || tx.Block != blocks[0].BlockRef {
			t.Errorf("block 1 txs %+v", blocks[0].Txs)
		}
		if txs := blocks[2].Txs; len(txs) != 3 || txs[1].Hash != s.create.Hex() || txs[1].To != "" {
			t.Errorf("block 3 txs %+v", txs)
		}
	})

	t.Run("transfers", func(t *testing.T) {
		tokens := []string{simToken.Hex(), simNFT.Hex()}
		tests := []struct {
			q    LogQuery
			want []string // tx hashes
		}{
			{LogQuery{From: 0, To: head, Tokens: tokens}, []string{s.token1.Hex(), s.token2.Hex()}},
			{LogQuery{From: 0, To: head, Tokens: tokens, Recipients: []string{s.alice.Hex()}}, []string{s.token1.Hex()}},
			{LogQuery{From: 3, To: head, Tokens: tokens, Recipients: []string{s.alice.Hex()}}, nil},
			{LogQuery{BlockHash: blockHash(t, c, 2), Recipients: []string{s.bob.Hex(), s.alice.Hex()}}, []string{s.token1.Hex(), s.token2.Hex()}},
		}
		for i, tt := range tests {
			got, err := p.Node().Transfers(ctx, tt.q)
			if err != nil {
				t.Fatalf("query %d: %v", i, err)
			}
			var hashes []string
			for _, tr := range got {
				hashes = append(hashes, tr.TxHash)
				if tr.TokenAddress != lower(simToken) || tr.From != sender || tr.Block.Number != 2 || tr.Network != "devchain" {
					t.Errorf("query %d: transfer %+v", i, tr)
				}
			}
			if !slices.Equal(hashes, tt.want) {
				t.Errorf("query %d: %v, want %v", i, hashes, tt.want)
			}
		}
	})

	t.Run("transaction", func(t *testing.T) {
		tests := []struct {
			hash      common.Hash
			succeeded bool
			transfers int
			block     uint64
		}{
			{s.native, true, 0, 1}, {s.token1, true, 1, 2}, {s.nft, true, 0, 3}, {s.revert, false, 0, 3},
		}
		for _, tt := range tests {
			tx, err := p.Node().Transaction(ctx, tt.hash.Hex())
			if err != nil {
				t.Fatal(err)
			}
			if tx.Succeeded != tt.succeeded || len(tx.Transfers) != tt.transfers || tx.Block.Number != tt.block ||
				tx.Block.Hash != blockHash(t, c, tt.block) || tx.From != sender {
				t.Errorf("tx %s: %+v", tt.hash, tx)
			}
			if tt.transfers == 1 && (tx.Transfers[0].To != lower(s.alice) || tx.Transfers[0].Amount.Int64() != 5_000_000) {
				t.Errorf("transfer %+v", tx.Transfers[0])
			}
		}
		if _, err := p.Node().Transaction(ctx, common.Hash{1}.Hex()); !errors.Is(err, ErrNotFound) {
			t.Errorf("an unknown transaction: %v", err)
		}
	})
	st := p.Stats()
	t.Logf("calls %v, HTTP requests %d, faults %d", st.Calls, st.HTTPRequests, st.Endpoints[0].Faults)
	if st.Endpoints[0].Faults != 0 || st.Failovers != 0 {
		t.Errorf("stats %+v", st)
	}
}

func blockHash(t *testing.T, c *simChain, n uint64) string {
	t.Helper()
	h, err := c.Client().HeaderByNumber(context.Background(), new(big.Int).SetUint64(n))
	if err != nil {
		t.Fatal(err)
	}
	return h.Hash().Hex()
}
