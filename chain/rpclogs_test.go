package chain

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/kassapay/kassa"
)

var (
	tokenA, tokenB, tokenC = fakeAddr(100), fakeAddr(101), fakeAddr(102)
	alice, bob, carol      = fakeAddr(1), fakeAddr(2), fakeAddr(3)
)

// logKeys is the (block, log index) of each transfer, in order.
func logKeys(ts []kassa.Transfer) []string {
	var keys []string
	for _, t := range ts {
		keys = append(keys, fmt.Sprintf("%d/%d", t.Block.Number, t.LogIndex))
	}
	return keys
}

func TestRPCTransfers(t *testing.T) {
	logs := []fakeLog{
		{Token: tokenA, From: carol, To: alice, Amount: 5, Block: 3, Index: 1},
		{Token: tokenA, From: carol, To: bob, Amount: 6, Block: 3, Index: 0},
		{Token: tokenB, From: carol, To: alice, Amount: 7, Block: 2, Index: 4},
		{Token: tokenC, From: carol, To: alice, Amount: 8, Block: 2, Index: 5},                // not a registry token
		{Token: tokenA, From: carol, To: alice, Amount: 9, Block: 4, Index: 0, Removed: true}, // reorganised away
		{Token: tokenA, Block: 5, Index: 0, Topics: []string{TransferTopic, pad(carol), pad(alice), pad(bob)}, Data: "0x"},
		{Token: tokenA, Block: 5, Index: 1, Topics: []string{TransferTopic, pad(carol), pad(alice)}, Data: "0x01"},
		{Token: tokenA, Block: 6, Index: 0, Topics: []string{TransferTopic, "0x01" + pad(carol)[4:], pad(alice)}},
		{Token: tokenB, From: carol, To: bob, Amount: 10, Block: 9, Index: 2},
	}
	tests := []struct {
		name string
		q    LogQuery
		want []string
	}{
		{"all recipients", LogQuery{From: 1, To: 10, Tokens: []string{tokenA, tokenB}}, []string{"2/4", "3/0", "3/1", "9/2"}},
		{"one recipient, EIP-55 case", LogQuery{From: 1, To: 10, Tokens: []string{tokenA, tokenB},
			Recipients: []string{"0x00000000000000000000000000000ADD00000001"}}, []string{"2/4", "3/1"}},
		{"a range", LogQuery{From: 3, To: 8, Tokens: []string{tokenA, tokenB}}, []string{"3/0", "3/1"}},
		{"a block hash", LogQuery{BlockHash: fakeHash(9), From: 100, To: 1, Tokens: []string{tokenB}}, []string{"9/2"}},
		{"empty range", LogQuery{From: 5, To: 4, Tokens: []string{tokenA}}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFakeNode(t, 1337, 20)
			f.set(func(f *fakeNode) { f.logs = logs })
			got, err := newTestRPC(t, f, 0).Transfers(context.Background(), tt.q)
			if err != nil {
				t.Fatal(err)
			}
			if keys := logKeys(got); !slices.Equal(keys, tt.want) {
				t.Fatalf("transfers %v, want %v", keys, tt.want)
			}
			for _, tr := range got {
				if tr.Network != "devchain" || tr.From != carol || tr.Block.Hash != fakeHash(tr.Block.Number) ||
					tr.TxHash != fakeTxHash(tr.Block.Number, uint64(tr.LogIndex)) || tr.Amount.Sign() <= 0 {
					t.Errorf("transfer %+v", tr)
				}
			}
			if len(got) > 0 && got[0].LogIndex == 4 && (got[0].To != alice || got[0].TokenAddress != tokenB || got[0].Amount.Int64() != 7) {
				t.Errorf("first transfer %+v", got[0])
			}
		})
	}
}

// TestRPCTransfersGarbage: an answer outside the query is the endpoint's fault.
func TestRPCTransfersGarbage(t *testing.T) {
	ok := fakeLog{Token: tokenA, From: carol, To: alice, Amount: 1, Block: 3}
	tests := []struct {
		name string
		log  fakeLog
		q    LogQuery
	}{
		{"outside the range", fakeLog{Token: tokenA, From: carol, To: alice, Amount: 1, Block: 12}, LogQuery{From: 1, To: 10}},
		{"another block", ok, LogQuery{BlockHash: fakeHash(4)}},
		{"another contract", ok, LogQuery{From: 1, To: 10, Tokens: []string{tokenB}}},
		{"another recipient", ok, LogQuery{From: 1, To: 10, Recipients: []string{bob}}},
		{"another event", fakeLog{Token: tokenA, Block: 3, Topics: []string{pad(alice)}}, LogQuery{From: 1, To: 10}},
		{"odd data hex", fakeLog{Token: tokenA, Block: 3, Data: "0x1"}, LogQuery{From: 1, To: 10}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFakeNode(t, 1337, 20)
			f.set(func(f *fakeNode) { f.logs, f.fault = []fakeLog{tt.log}, "unfiltered" })
			_, err := newTestRPC(t, f, 0).Transfers(context.Background(), tt.q)
			wantFault(t, err, FaultGarbage)
		})
	}
}

func TestRPCTransaction(t *testing.T) {
	mined, failed, pending, unknown := fakeTxHash(1, 1), fakeTxHash(1, 2), fakeTxHash(1, 3), fakeTxHash(1, 4)
	f := newFakeNode(t, 1337, 20)
	f.set(func(f *fakeNode) {
		f.txs[mined] = fakeTx{Block: 7, Status: 1, Logs: []fakeLog{
			{Token: tokenA, From: carol, To: alice, Amount: 5, Block: 7, Index: 3},
			{Token: tokenC, From: carol, To: bob, Amount: 6, Block: 7, Index: 4},
			{Token: tokenA, Block: 7, Index: 5, Topics: []string{TransferTopic}}, // not ERC-20 shaped
		}}
		f.txs[failed] = fakeTx{Block: 8, Status: 0}
		f.txs[pending] = fakeTx{}
	})
	r := newTestRPC(t, f, 0)
	ctx := context.Background()
	tx, err := r.Transaction(ctx, mined)
	if err != nil {
		t.Fatal(err)
	}
	if tx.Hash != mined || !tx.Succeeded || tx.Block.Number != 7 || tx.Block.Hash != fakeHash(7) || len(tx.Transfers) != 2 ||
		tx.Transfers[0].To != alice || tx.Transfers[1].TokenAddress != tokenC || tx.Transfers[1].TxHash != mined {
		t.Fatalf("tx %+v", tx)
	}
	if requests, calls := f.count("eth_getTransactionReceipt"); requests != 1 || calls != 1 {
		t.Errorf("%d HTTP requests, %d receipt calls; want one batch", requests, calls)
	}
	if tx, err := r.Transaction(ctx, failed); err != nil || tx.Succeeded {
		t.Errorf("failed tx: %+v, %v", tx, err)
	}
	for _, h := range []string{pending, unknown} {
		if _, err := r.Transaction(ctx, h); !errors.Is(err, ErrNotFound) || IsEndpointFault(err) {
			t.Errorf("Transaction(%s): %v, want ErrNotFound", h, err)
		}
	}
	if _, err := r.Transaction(ctx, "0x12"); err == nil || IsEndpointFault(err) {
		t.Errorf("a malformed hash: %v", err)
	}
}
