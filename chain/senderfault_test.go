package chain_test

import (
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/devchain"
	"github.com/kassapay/kassa/outbox"
	"github.com/kassapay/kassa/store"
	"github.com/kassapay/kassa/store/storetest"
)

// TestSettleAcrossCrashes: a sender that dies after storing its transactions but
// before broadcasting them, and one that dies after broadcasting, before the
// confirmations: a new sender (a restarted process) finishes from what was
// stored, and exactly one transfer reaches the merchant.
func TestSettleAcrossCrashes(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		p := onPayChain(t, cfg, true)
		usdtAddr := p.tokenAddress(t, usdt)
		inv, addr := p.invoice(t, 10_000, usdt)
		p.d.send(t, 0, usdtAddr, addr, dollars(10))

		// Signed and stored, never broadcast: the top-up, then (after a restart
		// that broadcast it) the sweep.
		pool := p.d.pool(t)
		p.sender.Account = dropBroadcasts{pool.Account()}
		for range 5 {
			p.step(t)
		}
		if p.balance(t, eth, addr).Sign() != 0 {
			t.Fatal("a top-up reached the chain although it was never broadcast")
		}
		p.sender = p.newSender(t, pool) // the restart
		p.until(t, 10, "topped up", func() bool { return p.balance(t, eth, addr).Sign() > 0 })
		p.sender.Account = dropBroadcasts{pool.Account()}
		for range 5 {
			p.step(t)
		}
		p.wantBalance(t, usdt, p.merchant, new(big.Int))
		if st, _ := p.settlement(t, inv); st[0] != kassa.SettlementProcessing {
			t.Fatalf("settlement %v before the sweep was broadcast, want processing", st)
		}

		// Broadcast, then the process dies before the confirmations.
		p.sender = p.newSender(t, pool)
		if err := p.sender.Round(p.ctx); err != nil {
			t.Fatal(err)
		}
		p.sender = p.newSender(t, pool)
		p.until(t, 10, "settled", func() bool { return p.settled(t, inv) })
		p.wantBalance(t, usdt, p.merchant, dollars(10))
		for range 5 {
			p.step(t)
		}
		p.wantBalance(t, usdt, p.merchant, dollars(10))
	})
}

// TestSettleNonceTakenByHand: the gas wallet's stored top-up never went out and
// an operator spent its nonce by hand; the sender sees the nonce used by another
// transaction, signs a new top-up under the next nonce and settles once. Then a
// nonce gap (a stored transaction above nonces nobody will send) is filled.
func TestSettleNonceTakenByHand(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		p := onPayChain(t, cfg, true)
		usdtAddr := p.tokenAddress(t, usdt)
		inv, addr := p.invoice(t, 10_000, usdt)
		p.d.send(t, 0, usdtAddr, addr, dollars(10))
		pool := p.d.pool(t)
		p.sender.Account = dropBroadcasts{pool.Account()}
		for range 4 {
			p.step(t)
		}
		nonce := p.nonce(t, p.gas, true)
		p.sendByHand(t, nonce) // the stored top-up's nonce
		p.sender = p.newSender(t, pool)
		p.until(t, 20, "settled", func() bool { return p.settled(t, inv) })
		p.wantBalance(t, usdt, p.merchant, dollars(10))
		if got := p.nonce(t, p.gas, false); got != nonce+2 {
			t.Errorf("gas wallet nonce %d, want %d: the hand-sent one and one top-up", got, nonce+2)
		}

		// A nonce gap: a transaction stored two nonces ahead of the chain.
		gap := p.nonce(t, p.gas, true) + 2
		net, _ := p.reg.Network(kassa.Devnet, "devchain")
		key, err := p.keys.GasKey(net)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := p.db.AddTx(p.ctx, &outbox.Tx{Environment: kassa.Devnet, Network: "devchain", From: p.gas,
			FromIndex: outbox.GasWalletIndex, Purpose: outbox.TxFiller, To: p.gas, Value: new(big.Int), GasLimit: 21000},
			gap, func(n uint64) (outbox.Attempt, error) { return signFiller(t, key, p.gas, n), nil }); err != nil {
			t.Fatal(err)
		}
		p.until(t, 20, "gap filled", func() bool { return p.nonce(t, p.gas, false) == gap+1 })
		second, addr2 := p.invoice(t, 10_000, usdt)
		p.d.send(t, 0, usdtAddr, addr2, dollars(10))
		p.until(t, 20, "settled after the gap", func() bool { return p.settled(t, second) })
		p.wantBalance(t, usdt, p.merchant, dollars(20))
	})
}

// nonce is addr's transaction count on the dev chain.
func (p *payFixture) nonce(t testing.TB, addr string, pending bool) uint64 {
	t.Helper()
	n, err := p.d.pool(t).Account().Nonce(p.ctx, addr, pending)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// sendByHand spends the gas wallet's nonce with a transfer to a stranger.
func (p *payFixture) sendByHand(t testing.TB, nonce uint64) {
	t.Helper()
	net, _ := p.reg.Network(kassa.Devnet, "devchain")
	key, err := p.keys.GasKey(net)
	if err != nil {
		t.Fatal(err)
	}
	a := signFiller(t, key, newAddress(t), nonce)
	if err := p.d.pool(t).Account().SendRaw(p.ctx, a.Raw); err != nil {
		t.Fatal(err)
	}
	p.d.Mine()
}

// signFiller signs an empty transfer to to at nonce with key.
func signFiller(t testing.TB, key []byte, to string, nonce uint64) outbox.Attempt {
	t.Helper()
	priv, err := crypto.ToECDSA(key)
	if err != nil {
		t.Fatal(err)
	}
	dest := common.HexToAddress(to)
	id := big.NewInt(devchain.ChainID)
	tx, err := types.SignTx(types.NewTx(&types.DynamicFeeTx{ChainID: id, Nonce: nonce, GasTipCap: big.NewInt(1e9),
		GasFeeCap: big.NewInt(10e9), Gas: 21000, To: &dest, Value: new(big.Int)}), types.LatestSignerForChainID(id), priv)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := tx.MarshalBinary()
	return outbox.Attempt{Hash: tx.Hash().Hex(), Raw: raw, Tip: big.NewInt(1e9), FeeCap: big.NewInt(10e9)}
}

// TestSettleFailsWhenDepositEmptied: the deposit address's tokens were moved away
// by hand before the sweep (someone with the master key): the sweep cannot be
// made, and after the retries the payout and the receipt are failed with the
// reason; nothing is sent.
func TestSettleFailsWhenDepositEmptied(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		p := onPayChain(t, cfg, true)
		usdtAddr := p.tokenAddress(t, usdt)
		inv, addr := p.invoice(t, 10_000, usdt)
		p.d.send(t, 0, usdtAddr, addr, dollars(10))
		p.d.send(t, 0, "", addr, big.NewInt(1e16)) // gas for the hand-made transfer
		p.d.Mine()
		p.d.Mine()
		p.sync(t)
		net, _ := p.reg.Network(kassa.Devnet, "devchain")
		index := p.depositIndex(t, inv)
		key, err := p.keys.DepositKey(net, index)
		if err != nil {
			t.Fatal(err)
		}
		data := append([]byte{0xa9, 0x05, 0x9c, 0xbb}, common.LeftPadBytes(common.HexToAddress(newAddress(t)).Bytes(), 32)...)
		data = append(data, common.LeftPadBytes(dollars(10).Bytes(), 32)...)
		a := signTx(t, key, usdtAddr, new(big.Int), data, 100_000, 0)
		if err := p.d.pool(t).Account().SendRaw(p.ctx, a.Raw); err != nil {
			t.Fatal(err)
		}
		p.d.Mine()
		p.wantBalance(t, usdt, addr, new(big.Int))
		p.until(t, 20, "failed", func() bool {
			st, _ := p.settlement(t, inv)
			return len(st) == 1 && st[0] == kassa.SettlementFailed
		})
		if open, err := p.db.OpenPayouts(p.ctx, kassa.Devnet, "devchain"); err != nil || len(open) != 0 {
			t.Fatalf("open payouts %d (%v), want the failed one closed", len(open), err)
		}
		p.wantBalance(t, usdt, p.merchant, new(big.Int))
	})
}

// depositIndex is the derivation index of inv's devchain deposit address.
func (p *payFixture) depositIndex(t testing.TB, inv *kassa.Invoice) uint32 {
	t.Helper()
	a, err := p.db.PaymentAddress(p.ctx, inv.ID, "devchain")
	if err != nil || a == nil {
		t.Fatalf("deposit address: %v", err)
	}
	return a.Index
}

// signTx signs a dev chain transaction with key.
func signTx(t testing.TB, key []byte, to string, value *big.Int, data []byte, gas, nonce uint64) outbox.Attempt {
	t.Helper()
	priv, err := crypto.ToECDSA(key)
	if err != nil {
		t.Fatal(err)
	}
	dest := common.HexToAddress(to)
	id := big.NewInt(devchain.ChainID)
	tx, err := types.SignTx(types.NewTx(&types.DynamicFeeTx{ChainID: id, Nonce: nonce, GasTipCap: big.NewInt(1e9),
		GasFeeCap: big.NewInt(10e9), Gas: gas, To: &dest, Value: value, Data: data}), types.LatestSignerForChainID(id), priv)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := tx.MarshalBinary()
	return outbox.Attempt{Raw: raw}
}
