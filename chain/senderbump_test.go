package chain_test

import (
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/ethclient"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/devchain"
	"github.com/kassapay/kassa/outbox"
	"github.com/kassapay/kassa/store"
	"github.com/kassapay/kassa/store/storetest"
)

// restartDevChain closes the fixture's dev chain and starts it again on its data
// dir with the miner's minimum tip minTip; the watcher and sender follow it.
func (p *payFixture) restartDevChain(t testing.TB, minTip *big.Int) {
	t.Helper()
	if err := p.d.Close(); err != nil {
		t.Fatal(err)
	}
	p.startDevChainAgain(t, minTip)
}

// startDevChainAgain starts the fixture's closed dev chain again on its data dir
// with the miner's minimum tip minTip (nil: the default); the watcher and sender
// follow it.
func (p *payFixture) startDevChainAgain(t testing.TB, minTip *big.Int) {
	t.Helper()
	dir := p.d.dataDir
	c, err := devchain.Start(devchain.Config{DataDir: dir, Addr: "127.0.0.1:0", MinTip: minTip})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	client, err := ethclient.Dial(c.URL())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(client.Close)
	p.d = &devChain{Chain: c, client: client, keys: p.d.keys, nonces: map[int]uint64{}, dataDir: dir}
	pool := p.d.pool(t)
	p.w.Nodes = pool
	p.sender = p.newSender(t, pool)
}

// TestSettleStuckTransactionBumped: the node suggests a tip below the miner's
// minimum (go-ethereum's miner.GasPrice), so the top-up and the sweep wait in
// the pool; each is replaced by a fee bump of 12.5 % after three blocks until
// mined, and the merchant is paid once.
func TestSettleStuckTransactionBumped(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		p := onPayChain(t, cfg, true)
		inv, addr := p.invoice(t, 10_000, usdt)
		p.d.send(t, 0, p.tokenAddress(t, usdt), addr, dollars(10)) // tips 1 gwei: the node suggests that
		p.sync(t)
		p.restartDevChain(t, big.NewInt(1_500_000_000)) // the miner now wants 1.5 gwei
		p.until(t, 80, "settled", func() bool { return p.settled(t, inv) })
		p.wantBalance(t, usdt, p.merchant, dollars(10))

		txs := p.outbox(t)
		if len(txs) != 2 {
			t.Fatalf("%d outbox transactions, want the top-up and the sweep", len(txs))
		}
		for _, tx := range txs {
			if len(tx.Attempts) < 2 {
				t.Errorf("%s: %d versions, want fee bumps", tx.Purpose, len(tx.Attempts))
			}
			for i := 1; i < len(tx.Attempts); i++ {
				prev, cur := tx.Attempts[i-1], tx.Attempts[i]
				if cur.Tip.Cmp(outbox.BumpFee(prev.Tip)) < 0 || cur.FeeCap.Cmp(outbox.BumpFee(prev.FeeCap)) < 0 {
					t.Errorf("%s version %d: tip %s fee cap %s after %s/%s: less than +12.5 %%", tx.Purpose, i,
						cur.Tip, cur.FeeCap, prev.Tip, prev.FeeCap)
				}
			}
			if last := tx.Attempts[len(tx.Attempts)-1]; last.Tip.Cmp(big.NewInt(1_500_000_000)) < 0 || tx.MinedHash != last.Hash {
				t.Errorf("%s: mined %s with the last version %s tipping %s", tx.Purpose, tx.MinedHash, last.Hash, last.Tip)
			}
		}
	})
}

// outbox lists the devchain outbox, every status, oldest first.
func (p *payFixture) outbox(t testing.TB) []*outbox.Tx {
	t.Helper()
	txs, err := p.db.OutboxTxs(p.ctx, kassa.Devnet, "devchain", 0)
	if err != nil {
		t.Fatal(err)
	}
	return txs
}
