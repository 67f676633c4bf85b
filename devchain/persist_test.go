package devchain_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"math/big"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
)

func TestRestartKeepsTheChain(t *testing.T) {
	dir := t.TempDir()
	c := startChain(t, dir, 0)
	ctx := context.Background()
	to := freshAddress(t)
	txs := []*types.Transaction{c.sendToken(8, usdt, "transfer", to, units(11)), c.send(8, to, big.NewInt(1e16), nil, 21_000)}
	var receipts []*types.Receipt
	for _, tx := range txs {
		receipts = append(receipts, c.receipt(tx))
	}
	if err := c.Mine(); err != nil {
		t.Fatal(err)
	}
	head := c.head()
	var hashes []common.Hash
	for n := int64(0); n <= head.Number.Int64(); n++ {
		h, err := c.client.HeaderByNumber(ctx, big.NewInt(n))
		if err != nil {
			t.Fatal(err)
		}
		hashes = append(hashes, h.Hash())
	}
	balances := func(c *testChain) []*big.Int {
		return []*big.Int{c.tokenBalance(usdt, to), c.tokenBalance(usdt, account(8)), c.ethBalance(to), c.ethBalance(account(8))}
	}
	before := balances(c)
	c.close()

	c = startChain(t, dir, 0)
	if h := c.head(); h.Hash() != head.Hash() {
		t.Fatalf("head after a restart %d %s, want %d %s", h.Number, h.Hash(), head.Number, head.Hash())
	}
	for n, want := range hashes {
		if h, err := c.client.HeaderByNumber(ctx, big.NewInt(int64(n))); err != nil || h.Hash() != want {
			t.Errorf("block %d after a restart: %v, want %s", n, err, want)
		}
	}
	if after := balances(c); fmt.Sprint(after) != fmt.Sprint(before) {
		t.Errorf("balances after a restart %v, want %v", after, before)
	}
	for i, tx := range txs {
		if r := c.receipt(tx); r.BlockHash != receipts[i].BlockHash || r.Status != types.ReceiptStatusSuccessful {
			t.Errorf("receipt of %s after a restart: in %s status %d", tx.Hash(), r.BlockHash, r.Status)
		}
	}
	r := c.receipt(c.sendToken(8, usdt, "transfer", to, units(1)))
	if r.Status != types.ReceiptStatusSuccessful || r.BlockNumber.Uint64() != head.Number.Uint64()+1 {
		t.Errorf("transfer after a restart: status %d in block %v", r.Status, r.BlockNumber)
	}
	if got := c.tokenBalance(usdt, to); got.Cmp(units(12)) != 0 {
		t.Errorf("recipient's tokens %v, want 12e6", got)
	}
}

// helperEnv names the data dir of TestHelperProcess's chain.
const helperEnv = "KASSA_DEVCHAIN_HELPER"

// killRecipient receives TestHelperProcess's transfers.
var killRecipient = common.HexToAddress("0x00000000000000000000000000000000000b0b0b")

// TestHelperProcess is TestKillNineKeepsEveryMinedBlock's child: it runs a chain,
// prints its head and then waits to be killed. Without helperEnv it does nothing.
func TestHelperProcess(t *testing.T) {
	dir := os.Getenv(helperEnv)
	if dir == "" {
		return
	}
	c := startChain(t, dir, 0)
	for i := range 3 {
		c.receipt(c.sendToken(9, usdt, "transfer", killRecipient, units(int64(i+1))))
		c.receipt(c.send(9, killRecipient, big.NewInt(1e15), nil, 21_000))
	}
	for range 3 {
		rpcCall[string](t, c.rpc, "evm_mine")
	}
	h := c.head()
	fmt.Printf("head %d hash %s balance %s\n", h.Number, h.Hash(), c.tokenBalance(usdt, killRecipient))
	time.Sleep(time.Hour)
}

func TestKillNineKeepsEveryMinedBlock(t *testing.T) {
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperProcess$")
	cmd.Env = append(os.Environ(), helperEnv+"="+dir)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-exited
	})
	lines, other := make(chan string, 1), new(strings.Builder)
	go func() {
		defer close(exited)
		for s := bufio.NewScanner(out); s.Scan(); {
			if strings.HasPrefix(s.Text(), "head ") {
				lines <- s.Text()
			} else {
				fmt.Fprintln(other, s.Text())
			}
		}
		cmd.Wait()
	}()
	var line string
	select {
	case line = <-lines:
	case <-exited:
	case <-time.After(2 * within):
	}
	if line == "" {
		cmd.Process.Kill()
		<-exited
		t.Fatalf("the child printed no head; its output:\n%s%s", other, &stderr)
	}
	var (
		number        uint64
		hash, balance string
	)
	if _, err := fmt.Sscanf(line, "head %d hash %s balance %s", &number, &hash, &balance); err != nil {
		t.Fatalf("%q: %v", line, err)
	}
	if err := cmd.Process.Kill(); err != nil { // SIGKILL
		t.Fatal(err)
	}
	<-exited
	t.Logf("killed the child at %s", line)

	c := startChain(t, dir, 0)
	if h := c.head(); h.Number.Uint64() != number || h.Hash().Hex() != hash {
		t.Fatalf("head after kill -9: %d %s, want %d %s", h.Number, h.Hash(), number, hash)
	}
	if got := c.tokenBalance(usdt, killRecipient).String(); got != balance {
		t.Errorf("balance after kill -9: %s, want %s", got, balance)
	}
	if r := c.receipt(c.sendToken(9, usdt, "transfer", killRecipient, units(1))); r.Status != types.ReceiptStatusSuccessful ||
		r.BlockNumber.Uint64() != number+1 {
		t.Errorf("transfer after kill -9: status %d in block %v", r.Status, r.BlockNumber)
	}
}
