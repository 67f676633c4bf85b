package chain

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/big"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"

	"github.com/kassapay/kassa"
)

// The JSON-RPC answers, parsed with go-ethereum's fixed-size types: a hash that is
// not 32 bytes or an address that is not 20 fails to decode (garbage). Required
// fields are pointers so that a missing one is noticed.

// rpcHeader is the part of a block RPC checks and uses.
type rpcHeader struct {
	Number     *hexutil.Uint64 `json:"number"`
	Hash       *common.Hash    `json:"hash"`
	ParentHash *common.Hash    `json:"parentHash"`
	Timestamp  *hexutil.Uint64 `json:"timestamp"` // optional: zero Time without it
}

// ref checks h (of block want, when not nil) and returns its BlockRef.
func (h *rpcHeader) ref(want *uint64) (kassa.BlockRef, error) {
	switch {
	case h.Number == nil || h.Hash == nil || h.ParentHash == nil:
		return kassa.BlockRef{}, errors.New("number, hash or parentHash missing")
	case want != nil && uint64(*h.Number) != *want:
		return kassa.BlockRef{}, fmt.Errorf("answered block %d", uint64(*h.Number))
	}
	ref := kassa.BlockRef{Number: uint64(*h.Number), Hash: hexHash(*h.Hash), Parent: hexHash(*h.ParentHash)}
	if h.Timestamp != nil && uint64(*h.Timestamp) <= math.MaxInt64 {
		ref.Time = time.Unix(int64(*h.Timestamp), 0).UTC()
	}
	return ref, nil
}

// rpcBlock is a block; its transactions are hashes unless asked in full.
type rpcBlock struct {
	rpcHeader
	Transactions json.RawMessage `json:"transactions"`

	checked kassa.BlockRef
}

// txs returns b's transactions, checked.
func (b *rpcBlock) txs() ([]Tx, error) {
	var full []rpcTx
	if err := json.Unmarshal(b.Transactions, &full); err != nil {
		return nil, err
	}
	txs := make([]Tx, 0, len(full))
	for i := range full {
		t := &full[i]
		if t.BlockHash != nil && hexHash(*t.BlockHash) != b.checked.Hash {
			return nil, fmt.Errorf("transaction %d is in block %s", i, hexHash(*t.BlockHash))
		}
		tx, err := t.tx(b.checked)
		if err != nil {
			return nil, fmt.Errorf("transaction %d: %v", i, err)
		}
		tx.Succeeded = true
		txs = append(txs, tx)
	}
	return txs, nil
}

// rpcTx is a transaction object.
type rpcTx struct {
	Hash        *common.Hash    `json:"hash"`
	From        *common.Address `json:"from"`
	To          *common.Address `json:"to"` // null for a contract creation
	Value       *hexutil.Big    `json:"value"`
	BlockHash   *common.Hash    `json:"blockHash"`
	BlockNumber *hexutil.Uint64 `json:"blockNumber"`
}

// tx checks t and returns it as a Tx in block.
func (t *rpcTx) tx(block kassa.BlockRef) (Tx, error) {
	if t.Hash == nil || t.From == nil || t.Value == nil {
		return Tx{}, errors.New("hash, from or value missing")
	}
	tx := Tx{Hash: hexHash(*t.Hash), Block: block, From: hexAddr(*t.From), Value: t.Value.ToInt()}
	if t.To != nil {
		tx.To = hexAddr(*t.To)
	}
	return tx, nil
}

// rpcReceipt is a transaction receipt.
type rpcReceipt struct {
	TransactionHash *common.Hash    `json:"transactionHash"`
	BlockHash       *common.Hash    `json:"blockHash"`
	BlockNumber     *hexutil.Uint64 `json:"blockNumber"`
	Status          *hexutil.Uint64 `json:"status"`
	GasUsed         hexutil.Uint64  `json:"gasUsed"`
	Logs            []rpcLog        `json:"logs"`
}

// rpcLog is a log object.
type rpcLog struct {
	Address         *common.Address `json:"address"`
	Topics          []common.Hash   `json:"topics"`
	Data            *hexutil.Bytes  `json:"data"`
	BlockNumber     *hexutil.Uint64 `json:"blockNumber"`
	BlockHash       *common.Hash    `json:"blockHash"`
	TransactionHash *common.Hash    `json:"transactionHash"`
	LogIndex        *hexutil.Uint64 `json:"logIndex"`
	Removed         bool            `json:"removed"`
}

var transferTopic = common.HexToHash(TransferTopic)

// check reports a log that lacks what every mined log has.
func (l *rpcLog) check() error {
	if l.Address == nil || l.Data == nil || l.BlockNumber == nil || l.BlockHash == nil ||
		l.TransactionHash == nil || l.LogIndex == nil {
		return errors.New("log without address, data, block, transaction or index")
	}
	if uint64(*l.LogIndex) > 1<<40 {
		return fmt.Errorf("log index %d", uint64(*l.LogIndex))
	}
	return nil
}

// transfer returns the ERC-20 Transfer l is, or false when l does not have that
// shape: topic 0 TransferTopic, from and to as topics 1 and 2 (addresses padded
// with zeros), the amount as 32 bytes of data. l must have passed check.
func (l *rpcLog) transfer(network string) (kassa.Transfer, bool) {
	if len(l.Topics) != 3 || l.Topics[0] != transferTopic || len(*l.Data) != 32 {
		return kassa.Transfer{}, false
	}
	from, ok1 := topicAddr(l.Topics[1])
	to, ok2 := topicAddr(l.Topics[2])
	if !ok1 || !ok2 {
		return kassa.Transfer{}, false
	}
	return kassa.Transfer{
		Network:      network,
		TxHash:       hexHash(*l.TransactionHash),
		LogIndex:     int64(*l.LogIndex),
		Block:        kassa.BlockRef{Number: uint64(*l.BlockNumber), Hash: hexHash(*l.BlockHash)},
		TokenAddress: hexAddr(*l.Address),
		From:         from,
		To:           to,
		Amount:       new(big.Int).SetBytes(*l.Data),
	}, true
}

// topicAddr reads an address from a topic: 12 zero bytes, then 20.
func topicAddr(h common.Hash) (string, bool) {
	for _, b := range h[:12] {
		if b != 0 {
			return "", false
		}
	}
	return hexAddr(common.BytesToAddress(h[12:])), true
}

// addrTopic pads an address into a topic.
func addrTopic(a common.Address) common.Hash { return common.BytesToHash(a[:]) }

// hexHash is h as 0x-prefixed lower-case hex.
func hexHash(h common.Hash) string { return h.Hex() }

// hexAddr is a as 0x-prefixed lower-case hex (not EIP-55).
func hexAddr(a common.Address) string { return hexutil.Encode(a[:]) }

// isHash reports whether s is a 0x-prefixed 32-byte hex string.
func isHash(s string) bool {
	return len(s) == 66 && strings.HasPrefix(s, "0x") && strings.Trim(strings.ToLower(s[2:]), "0123456789abcdef") == ""
}

// validAddr reports whether s is a 0x-prefixed 20-byte hex string.
func validAddr(s string) bool { return strings.HasPrefix(s, "0x") && common.IsHexAddress(s) }
