package chain

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/kassapay/kassa"
)

// MaxRecipients is the most recipients RPC puts in one eth_getLogs topic filter;
// more are split over several calls.
const MaxRecipients = 1000

// logFilter is eth_getLogs' parameter.
type logFilter struct {
	FromBlock *hexutil.Uint64  `json:"fromBlock,omitempty"`
	ToBlock   *hexutil.Uint64  `json:"toBlock,omitempty"`
	BlockHash *common.Hash     `json:"blockHash,omitempty"`
	Address   []common.Address `json:"address,omitempty"`
	Topics    [][]common.Hash  `json:"topics"` // a nil position matches anything
}

// Transfers returns the ERC-20 Transfer logs of q, sorted by block then log index:
// eth_getLogs of q.Tokens' contracts (any contract when Tokens is empty) with topic
// 0 TransferTopic and topic 2 one of q.Recipients (at most MaxRecipients per call),
// by q.BlockHash when set, else over q.From..q.To, halving the range while the
// node answers that it is too large. Logs marked removed, and logs of the Transfer
// topic without the ERC-20 shape (3 topics, 32 bytes of data), are left out; an
// answer outside the query (another block, contract or recipient) is garbage.
func (r *RPC) Transfers(ctx context.Context, q LogQuery) ([]kassa.Transfer, error) {
	f := logFilter{}
	for _, t := range q.Tokens {
		if !validAddr(t) {
			return nil, fmt.Errorf("chain: token address %q", t)
		}
		f.Address = append(f.Address, common.HexToAddress(t))
	}
	var recipients []common.Hash
	seen := map[common.Hash]bool{}
	for _, a := range q.Recipients {
		if !validAddr(a) {
			return nil, fmt.Errorf("chain: recipient address %q", a)
		}
		if t := addrTopic(common.HexToAddress(a)); !seen[t] {
			seen[t] = true
			recipients = append(recipients, t)
		}
	}
	if q.BlockHash != "" {
		if !isHash(q.BlockHash) {
			return nil, fmt.Errorf("chain: block hash %q", q.BlockHash)
		}
		h := common.HexToHash(q.BlockHash)
		f.BlockHash = &h
	} else if q.From > q.To {
		return nil, nil
	}
	var all []kassa.Transfer
	for start := 0; start == 0 || start < len(recipients); start += MaxRecipients {
		f.Topics = [][]common.Hash{{transferTopic}}
		if len(recipients) > 0 {
			f.Topics = append(f.Topics, nil, recipients[start:min(start+MaxRecipients, len(recipients))])
		}
		got, err := r.logsHalving(ctx, f, q.From, q.To)
		if err != nil {
			return nil, err
		}
		all = append(all, got...)
	}
	slices.SortFunc(all, func(a, b kassa.Transfer) int {
		return cmp.Or(cmp.Compare(a.Block.Number, b.Block.Number), cmp.Compare(a.LogIndex, b.LogIndex),
			cmp.Compare(a.Block.Hash, b.Block.Hash))
	})
	return slices.CompactFunc(all, func(a, b kassa.Transfer) bool {
		return a.Block.Hash == b.Block.Hash && a.LogIndex == b.LogIndex
	}), nil
}

// logsHalving runs f over from..to (or f's block hash), splitting the range in
// halves while the node answers that it is too large.
func (r *RPC) logsHalving(ctx context.Context, f logFilter, from, to uint64) ([]kassa.Transfer, error) {
	if f.BlockHash == nil {
		lo, hi := hexutil.Uint64(from), hexutil.Uint64(to)
		f.FromBlock, f.ToBlock = &lo, &hi
	}
	got, err := r.logs(ctx, f, from, to)
	if err == nil || f.BlockHash != nil || from == to || !rangeTooLarge(err) {
		return got, err
	}
	mid := from + (to-from)/2
	a, err := r.logsHalving(ctx, f, from, mid)
	if err != nil {
		return nil, err
	}
	b, err := r.logsHalving(ctx, f, mid+1, to)
	if err != nil {
		return nil, err
	}
	return append(a, b...), nil
}

// logs makes one eth_getLogs call and checks its answer against f.
func (r *RPC) logs(ctx context.Context, f logFilter, from, to uint64) ([]kassa.Transfer, error) {
	const method = "eth_getLogs"
	var raw []rpcLog
	if err := r.call(ctx, &raw, method, f); err != nil {
		return nil, err
	}
	var out []kassa.Transfer
	for i := range raw {
		l := &raw[i]
		if l.Removed {
			continue
		}
		if err := l.check(); err != nil {
			return nil, r.garbage(method, "%v", err)
		}
		switch n := uint64(*l.BlockNumber); {
		case f.BlockHash != nil && *l.BlockHash != *f.BlockHash:
			return nil, r.garbage(method, "log of block %s, asked %s", hexHash(*l.BlockHash), hexHash(*f.BlockHash))
		case f.BlockHash == nil && (n < from || n > to):
			return nil, r.garbage(method, "log of block %d, asked %d..%d", n, from, to)
		case len(f.Address) > 0 && !slices.Contains(f.Address, *l.Address):
			return nil, r.garbage(method, "log of contract %s, not asked", hexAddr(*l.Address))
		case len(l.Topics) == 0 || l.Topics[0] != transferTopic:
			return nil, r.garbage(method, "log without the Transfer topic")
		case len(f.Topics) == 3 && (len(l.Topics) < 3 || !slices.Contains(f.Topics[2], l.Topics[2])):
			return nil, r.garbage(method, "log to a recipient not asked")
		}
		if t, ok := l.transfer(r.network); ok {
			out = append(out, t)
		}
	}
	return out, nil
}

// Transaction returns the mined transaction hash with its receipt's status and
// ERC-20 Transfer logs (of every contract: the caller picks its tokens), in one
// batch of eth_getTransactionByHash and eth_getTransactionReceipt. ErrNotFound
// when the node does not know it or it is not mined.
func (r *RPC) Transaction(ctx context.Context, hash string) (*Tx, error) {
	if !isHash(hash) {
		return nil, fmt.Errorf("chain: transaction hash %q", hash)
	}
	h := common.HexToHash(hash)
	var t *rpcTx
	var rc *rpcReceipt
	b := []rpc.BatchElem{
		{Method: "eth_getTransactionByHash", Args: []any{h}, Result: &t},
		{Method: "eth_getTransactionReceipt", Args: []any{h}, Result: &rc},
	}
	if err := r.batch(ctx, b); err != nil {
		return nil, err
	}
	for _, e := range b {
		if e.Error != nil {
			return nil, r.count(r.classify(ctx, nil, e.Method, e.Error))
		}
	}
	if t == nil || rc == nil || t.BlockHash == nil {
		return nil, ErrNotFound
	}
	switch {
	case t.Hash == nil || *t.Hash != h:
		return nil, r.garbage(b[0].Method, "answered another transaction")
	case rc.TransactionHash == nil || *rc.TransactionHash != h:
		return nil, r.garbage(b[1].Method, "answered another transaction's receipt")
	case rc.BlockHash == nil || rc.BlockNumber == nil:
		return nil, r.garbage(b[1].Method, "receipt without its block")
	case rc.Status == nil:
		return nil, fmt.Errorf("chain: transaction %s: receipt without status (pre-Byzantium)", hash)
	}
	block := kassa.BlockRef{Number: uint64(*rc.BlockNumber), Hash: hexHash(*rc.BlockHash)}
	tx, err := t.tx(block)
	if err != nil {
		return nil, r.garbage(b[0].Method, "%v", err)
	}
	tx.Succeeded, tx.GasUsed = *rc.Status == 1, uint64(rc.GasUsed)
	for i := range rc.Logs {
		l := &rc.Logs[i]
		if l.Removed {
			continue
		}
		if err := l.check(); err != nil {
			return nil, r.garbage(b[1].Method, "%v", err)
		}
		if tr, ok := l.transfer(r.network); ok {
			tr.Block = block
			tx.Transfers = append(tx.Transfers, tr)
		}
	}
	return &tx, nil
}
