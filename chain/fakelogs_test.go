package chain

import (
	"encoding/json"
	"fmt"
	"math/big"
	"slices"
	"strconv"
	"strings"
)

// fakeFilter is eth_getLogs' parameter as the fake node reads it.
type fakeFilter struct {
	FromBlock, ToBlock, BlockHash string
	Address                       []string
	Topics                        [][]string
}

func hexNum(s string) uint64 {
	n, _ := strconv.ParseUint(strings.TrimPrefix(s, "0x"), 16, 64)
	return n
}

// getLogs answers eth_getLogs over the canned logs, as a node would filter them.
func (f *fakeNode) getLogs(raw json.RawMessage) (any, string) {
	var q fakeFilter
	if err := json.Unmarshal(raw, &q); err != nil {
		return nil, "invalid filter: " + err.Error()
	}
	from, to := hexNum(q.FromBlock), hexNum(q.ToBlock)
	if q.BlockHash != "" {
		from, to = 0, f.head
	}
	f.ranges = append(f.ranges, [2]uint64{from, to})
	if f.fault == "tooLarge" || q.BlockHash == "" && f.maxRange > 0 && to-from+1 > f.maxRange {
		return nil, f.rangeMsg
	}
	out := []any{}
	for _, l := range f.logs {
		m := l.json()
		topics := m["topics"].([]string)
		switch {
		case f.fault == "unfiltered":
			out = append(out, m)
		case l.Block < from || l.Block > to:
		case q.BlockHash != "" && m["blockHash"] != q.BlockHash:
		case len(q.Address) > 0 && !slices.Contains(q.Address, strings.ToLower(l.Token)):
		case !topicsMatch(q.Topics, topics):
		default:
			out = append(out, m)
		}
	}
	return out, ""
}

// topicsMatch is eth_getLogs' topic filter: position i matches any of want[i].
func topicsMatch(want [][]string, topics []string) bool {
	for i, w := range want {
		if len(w) == 0 {
			continue
		}
		if i >= len(topics) || !slices.Contains(w, topics[i]) {
			return false
		}
	}
	return true
}

// json is the log as a node answers it.
func (l fakeLog) json() map[string]any {
	topics := l.Topics
	if topics == nil {
		topics = []string{TransferTopic, pad(l.From), pad(l.To)}
	}
	data := l.Data
	if data == "" {
		data = fmt.Sprintf("0x%064x", big.NewInt(l.Amount))
	}
	bh := l.BlockHash
	if bh == "" {
		bh = fakeHash(l.Block)
	}
	return map[string]any{
		"address": l.Token, "topics": topics, "data": data,
		"blockNumber": fmt.Sprintf("0x%x", l.Block), "blockHash": bh,
		"transactionHash": fakeTxHash(l.Block, l.Index), "transactionIndex": "0x0",
		"logIndex": fmt.Sprintf("0x%x", l.Index), "removed": l.Removed,
	}
}

func fakeTxHash(block, index uint64) string { return fmt.Sprintf("0x%064x", 0x7a<<40+block<<16+index) }

// tx answers eth_getTransactionByHash or eth_getTransactionReceipt.
func (f *fakeNode) tx(method, hash string) any {
	t, ok := f.txs[hash]
	if !ok {
		return nil
	}
	var bh, bn any // pending
	if t.Block > 0 {
		bh, bn = fakeHash(t.Block), fmt.Sprintf("0x%x", t.Block)
	}
	if method == "eth_getTransactionByHash" {
		return map[string]any{"hash": hash, "from": fakeAddr(1), "to": fakeAddr(9), "value": "0x0",
			"blockHash": bh, "blockNumber": bn}
	}
	if t.Block == 0 {
		return nil
	}
	logs := []any{}
	for _, l := range t.Logs {
		m := l.json()
		m["transactionHash"] = hash
		logs = append(logs, m)
	}
	return map[string]any{"transactionHash": hash, "blockHash": bh, "blockNumber": bn,
		"status": fmt.Sprintf("0x%x", t.Status), "logs": logs}
}
