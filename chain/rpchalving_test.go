package chain

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// everyBlock is a Transfer to alice in each block from..to, and one to bob in
// every tenth block.
func everyBlock(from, to uint64) []fakeLog {
	var logs []fakeLog
	for n := from; n <= to; n++ {
		logs = append(logs, fakeLog{Token: tokenA, From: carol, To: alice, Amount: int64(n), Block: n, Index: 1})
		if n%10 == 0 {
			logs = append(logs, fakeLog{Token: tokenA, From: carol, To: bob, Amount: 1, Block: n, Index: 0})
		}
	}
	return logs
}

func TestRPCTransfersHalving(t *testing.T) {
	tests := []struct {
		maxRange  uint64
		wantCalls int
	}{
		{100, 1}, {60, 3}, {30, 7}, {10, 31}, {7, 31}, {1, 199},
	}
	want := logKeys(nil)
	for n := uint64(1); n <= 100; n++ {
		if n%10 == 0 {
			want = append(want, fmt.Sprintf("%d/0", n))
		}
		want = append(want, fmt.Sprintf("%d/1", n))
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.maxRange), func(t *testing.T) {
			f := newFakeNode(t, 1337, 200)
			f.set(func(f *fakeNode) { f.logs, f.maxRange = everyBlock(1, 100), tt.maxRange })
			r := newTestRPC(t, f, 0)
			got, err := r.Transfers(context.Background(), LogQuery{From: 1, To: 100, Tokens: []string{tokenA}})
			if err != nil {
				t.Fatal(err)
			}
			if keys := logKeys(got); !slices.Equal(keys, want) {
				t.Fatalf("transfers %v,\nwant %v", keys, want)
			}
			_, calls := f.count("eth_getLogs")
			if calls != tt.wantCalls || r.Stats().Calls["eth_getLogs"] != int64(tt.wantCalls) {
				t.Errorf("%d eth_getLogs calls (stats %v), want %d", calls, r.Stats().Calls, tt.wantCalls)
			}
			// The ranges that succeeded tile 1..100 in order.
			next := uint64(1)
			f.set(func(f *fakeNode) {
				for _, rg := range f.ranges {
					if rg[1]-rg[0]+1 <= tt.maxRange {
						if rg[0] != next {
							t.Errorf("range %v after %d", rg, next-1)
						}
						next = rg[1] + 1
					}
				}
			})
			if next != 101 {
				t.Errorf("ranges end at %d", next-1)
			}
		})
	}
}

// TestRPCTransfersRangeMessages: which answers halve the range.
func TestRPCTransfersRangeMessages(t *testing.T) {
	tests := []struct {
		msg       string
		wantCalls int // over 1..4 with every range refused: 1..4, 1..2, 1..1 (the error) if halving
		fault     bool
	}{
		{"query returned more than 10000 results", 3, false},
		{"Limit Exceeded", 3, false},
		{"block range is too wide", 3, false},
		{"exceed maximum block range: 5000", 3, false},
		{"Log response size exceeded. You can make eth_getLogs requests with up to a 2K block range", 3, false},
		{"too many blocks requested", 3, false},
		{"query range too large", 3, false},
		{"eth_getLogs is limited to a 10,000 range", 3, false},
		{"execution reverted", 1, false},
		{"invalid params", 1, false},
		{"daily request count exceeded, request rate limited", 1, true},
	}
	for _, tt := range tests {
		t.Run(tt.msg, func(t *testing.T) {
			f := newFakeNode(t, 1337, 200)
			f.set(func(f *fakeNode) { f.logs, f.rangeMsg, f.fault = everyBlock(1, 4), tt.msg, "tooLarge" })
			_, err := newTestRPC(t, f, 0).Transfers(context.Background(), LogQuery{From: 1, To: 4, Tokens: []string{tokenA}})
			if err == nil || !strings.Contains(err.Error(), tt.msg) || IsEndpointFault(err) != tt.fault {
				t.Fatalf("error %v, want %q (fault %v)", err, tt.msg, tt.fault)
			}
			if _, calls := f.count("eth_getLogs"); calls != tt.wantCalls {
				t.Errorf("%d calls, want %d", calls, tt.wantCalls)
			}
		})
	}
}

func TestRPCTransfersRecipientChunks(t *testing.T) {
	var recipients []string
	for i := range 2500 {
		recipients = append(recipients, fakeAddr(1000+i))
	}
	recipients = append(recipients, strings.ToUpper(recipients[7][2:])) // a duplicate
	recipients[2500] = "0x" + recipients[2500]
	f := newFakeNode(t, 1337, 200)
	f.set(func(f *fakeNode) {
		f.logs = []fakeLog{
			{Token: tokenA, From: carol, To: recipients[2400], Amount: 1, Block: 5, Index: 2},
			{Token: tokenA, From: carol, To: recipients[1500], Amount: 1, Block: 5, Index: 1},
			{Token: tokenA, From: carol, To: recipients[7], Amount: 1, Block: 6, Index: 0},
			{Token: tokenA, From: carol, To: recipients[0], Amount: 1, Block: 9, Index: 0},
			{Token: tokenA, From: carol, To: alice, Amount: 1, Block: 9, Index: 1},
		}
	})
	got, err := newTestRPC(t, f, 0).Transfers(context.Background(), LogQuery{From: 1, To: 10, Tokens: []string{tokenA}, Recipients: recipients})
	if err != nil {
		t.Fatal(err)
	}
	if keys := logKeys(got); !slices.Equal(keys, []string{"5/1", "5/2", "6/0", "9/0"}) {
		t.Fatalf("transfers %v", keys)
	}
	if _, calls := f.count("eth_getLogs"); calls != 3 {
		t.Errorf("%d eth_getLogs calls, want 3 (1000 recipients each)", calls)
	}
}
