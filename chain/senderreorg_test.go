package chain_test

import (
	"math/big"
	"strings"
	"testing"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/chain"
	"github.com/kassapay/kassa/outbox"
	"github.com/kassapay/kassa/store"
	"github.com/kassapay/kassa/store/storetest"
)

// TestSettleReorgDropsSweep: a reorganisation drops the confirmed sweep with its
// block; its receipt goes back to processing, the stored transaction is sent
// again and confirmed, and the merchant is paid once.
func TestSettleReorgDropsSweep(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		p := onPayChain(t, cfg, true)
		inv, addr := p.invoice(t, 10_000, usdt)
		p.d.send(t, 0, p.tokenAddress(t, usdt), addr, dollars(10))
		p.until(t, 30, "settled", func() bool { return p.settled(t, inv) })
		_, hashes := p.settlement(t, inv)
		tx, err := p.d.pool(t).Node().Transaction(p.ctx, hashes[0])
		if err != nil {
			t.Fatal(err)
		}
		p.d.reorgTo(t, tx.Block.Number-1, false) // the sweep's block and its transaction are gone
		p.wantBalance(t, usdt, p.merchant, new(big.Int))
		p.wantBalance(t, usdt, addr, dollars(10))
		for range 2 {
			p.d.Mine() // the new chain is longer than the old one
		}
		if err := p.sender.Round(p.ctx); err != nil {
			t.Fatal(err)
		}
		if st, _ := p.settlement(t, inv); st[0] != kassa.SettlementProcessing {
			t.Fatalf("after the reorganisation: %v, want processing", st)
		}
		p.until(t, 30, "settled again", func() bool { return p.settled(t, inv) })
		p.wantBalance(t, usdt, p.merchant, dollars(10))
		_, again := p.settlement(t, inv)
		if again[0] != hashes[0] {
			t.Errorf("settled by %s after the reorganisation, want the stored transaction %s", again[0], hashes[0])
		}
	})
}

// TestSettleGasWalletDry: with an empty gas wallet the sweeps wait, saying why,
// and fail nothing; once the wallet is funded they go through.
func TestSettleGasWalletDry(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		p := onPayChain(t, cfg, false)
		usdtAddr := p.tokenAddress(t, usdt)
		a, addrA := p.invoice(t, 10_000, usdt)
		b, addrB := p.invoice(t, 5_000, usdt)
		p.d.send(t, 0, usdtAddr, addrA, dollars(10))
		p.d.send(t, 0, usdtAddr, addrB, dollars(5))
		for range 20 {
			p.step(t)
		}
		for _, inv := range []*kassa.Invoice{a, b} {
			if st, _ := p.settlement(t, inv); st[0] != kassa.SettlementProcessing {
				t.Fatalf("settlement %v with a dry gas wallet, want processing", st)
			}
		}
		payouts, err := p.db.OpenPayouts(p.ctx, kassa.Devnet, "devchain")
		if err != nil {
			t.Fatal(err)
		}
		if len(payouts) != 2 || payouts[0].Status != outbox.PayoutQueued || !strings.Contains(payouts[0].Reason, "gas wallet") {
			t.Fatalf("payouts %d, first %+v, want two queued, waiting for the gas wallet", len(payouts), *payouts[0])
		}
		report, err := p.sender.GasReport(p.ctx)
		if err != nil {
			t.Fatal(err)
		}
		if !report.Short || report.Waiting != 2 || report.Need.Sign() <= 0 || report.Balance.Sign() != 0 {
			t.Fatalf("gas report %+v, want short with 2 waiting", report)
		}
		warn := report.Warning()
		for _, want := range []string{p.gas, "devchain (devnet) holds 0 ETH", "the 2 waiting payouts need up to 0."} {
			if !strings.Contains(warn, want) {
				t.Fatalf("warning %q, want %q in it", warn, want)
			}
		}
		senders := &chain.Senders{}
		senders.Add(p.sender)
		if ws := senders.Warnings(); len(ws) != 1 || !strings.Contains(ws[0], p.gas) {
			t.Fatalf("the senders' warnings after their rounds: %q", ws)
		}
		// Another instance, which does not hold the send lease, warns too.
		other := p.newSender(t, p.d.pool(t))
		other.Holder = "another instance"
		if err := other.Round(p.ctx); err != nil {
			t.Fatal(err)
		}
		others := &chain.Senders{}
		others.Add(other)
		if ws := others.Warnings(); len(ws) != 1 || !strings.Contains(ws[0], p.gas) {
			t.Fatalf("warnings of an instance without the send lease: %q", ws)
		}
		p.fund(t)
		p.until(t, 30, "settled once funded", func() bool { return p.settled(t, a, b) })
		p.wantBalance(t, usdt, p.merchant, dollars(15))
		if report, _ := p.sender.GasReport(p.ctx); report.Short || report.Waiting != 0 {
			t.Fatalf("gas report after funding %+v", report)
		} else if w := report.Warning(); w != "" {
			t.Fatalf("warning after funding: %q", w)
		}
	})
}

// TestSettleHundredReceipts: 100 confirmed receipts on 50 deposit addresses; the
// merchant's balance is their sum to the base unit, and each address is swept
// once.
func TestSettleHundredReceipts(t *testing.T) {
	if testing.Short() {
		t.Skip("100 transfers and 100 settlement transactions")
	}
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		p := onPayChain(t, cfg, true)
		usdtAddr := p.tokenAddress(t, usdt)
		var invs []*kassa.Invoice
		sum := new(big.Int)
		for i := range 50 {
			inv, addr := p.invoice(t, 20_000, usdt)
			invs = append(invs, inv)
			first := big.NewInt(int64(7_000_000 + 13*i)) // odd amounts: every base unit counts
			second := new(big.Int).Sub(dollars(20), first)
			p.d.send(t, i%10, usdtAddr, addr, first)
			p.d.send(t, (i+1)%10, usdtAddr, addr, second)
			sum.Add(sum, first).Add(sum, second)
		}
		p.until(t, 200, "100 receipts settled", func() bool { return p.settled(t, invs...) })
		p.wantBalance(t, usdt, p.merchant, sum)
		sweeps := 0
		for _, tx := range p.outbox(t) {
			if tx.Purpose == outbox.TxTransfer {
				sweeps++
			}
		}
		if sweeps > 100 || sweeps < 50 {
			t.Errorf("%d sweeps for 50 addresses", sweeps)
		}
	})
}
