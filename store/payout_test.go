package store_test

import (
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/commerce"
	"github.com/kassapay/kassa/outbox"
	"github.com/kassapay/kassa/settlement"
	"github.com/kassapay/kassa/store"
	"github.com/kassapay/kassa/store/storetest"
)

// queuedSweep pays a fresh invoice, claims its receipt and queues its sweep.
func (f *fixture) queuedSweep(t *testing.T, hash, deposit string) (*outbox.Payout, *kassa.Payment) {
	t.Helper()
	r, _ := f.pay(t, f.invoice(t, f.m, 1000, nil), hash, 1000, true)
	jobs, err := f.db.ClaimSettlements(f.ctx, 10, time.Minute)
	must(t, err)
	for _, j := range jobs {
		if j.ReceiptID == r.ID {
			j.DepositAddress, j.To = deposit, "0x52908400098527886E0F7030069857D2E4169EE7"
			p, err := f.db.QueueSweep(f.ctx, j)
			must(t, err)
			return p, r
		}
	}
	t.Fatalf("receipt %s not claimed", r.ID)
	return nil, nil
}

// addTx stores a signed transaction of payout p from its deposit address.
func (f *fixture) addTx(t *testing.T, p *outbox.Payout, purpose string, minNonce uint64) *outbox.Tx {
	t.Helper()
	tx, err := f.db.AddTx(f.ctx, &outbox.Tx{Environment: kassa.Devnet, Network: p.Network, From: p.From,
		Purpose: purpose, PayoutID: p.ID, PayoutAmount: p.Amount, To: p.To, Value: new(big.Int), GasLimit: 60_000}, minNonce,
		func(n uint64) (outbox.Attempt, error) {
			hash := "0x" + strings.ReplaceAll(kassa.NewUUID()+kassa.NewUUID(), "-", "")
			return outbox.Attempt{Hash: hash, Raw: []byte{byte(n)},
				Tip: big.NewInt(1), FeeCap: big.NewInt(2)}, nil
		})
	must(t, err)
	return tx
}

func (f *fixture) receiptSettlement(t *testing.T, r *kassa.Payment) kassa.SettlementStatus {
	t.Helper()
	rs, err := f.db.InvoicePayments(f.ctx, r.MerchantID, r.InvoiceID, 10)
	must(t, err)
	return rs[0].Settlement
}

// TestOutboxNonces: one allocator per (network, sender): the stored next nonce
// or the chain's count, whichever is larger; a filler takes exactly its nonce.
func TestOutboxNonces(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		f := newFixture(t, cfg)
		p, _ := f.queuedSweep(t, "0x01", "0x1111111111111111111111111111111111111111")
		for _, c := range []struct {
			purpose  string
			min      uint64
			want     uint64
			wantNext uint64
		}{
			{outbox.TxTopup, 0, 0, 1},
			{outbox.TxTopup, 5, 5, 6}, // sent by hand up to 4: stepped over
			{outbox.TxTopup, 0, 6, 7},
			{outbox.TxFiller, 2, 2, 7}, // a gap filler takes exactly 2
		} {
			tx := f.addTx(t, p, c.purpose, c.min)
			next, err := f.db.NextNonce(f.ctx, p.Network, p.From)
			must(t, err)
			if tx.Nonce != c.want || next != c.wantNext {
				t.Errorf("%s min %d: nonce %d next %d, want %d and %d", c.purpose, c.min, tx.Nonce, next, c.want, c.wantNext)
			}
		}
		other, err := f.db.NextNonce(f.ctx, "other-network", p.From)
		if err != nil || other != 0 {
			t.Errorf("another network's next nonce %d (%v), want 0", other, err)
		}
	})
}

// TestPayoutOutcomes: what the chain says of a transfer reaches its payout and
// receipts: confirmed settles them with the mined hash; dropped by a
// reorganisation they are processing again; reverted three times, failed.
func TestPayoutOutcomes(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		f := newFixture(t, cfg)
		p, r := f.queuedSweep(t, "0x01", "0x1111111111111111111111111111111111111111")
		tx := f.addTx(t, p, outbox.TxTransfer, 0)
		block := kassa.BlockRef{Number: 10, Hash: "0xb10"}
		steps := []struct {
			o    outbox.Outcome
			want kassa.SettlementStatus
		}{
			{outbox.Outcome{Status: outbox.TxPending, MinedHash: tx.Latest().Hash, Block: block}, kassa.SettlementProcessing},
			{outbox.Outcome{Status: outbox.TxConfirmed, MinedHash: tx.Latest().Hash, Block: block, GasUsed: 29_000}, kassa.SettlementSettled},
			{outbox.Outcome{Status: outbox.TxPending}, kassa.SettlementProcessing}, // the block left the chain
			{outbox.Outcome{Status: outbox.TxConfirmed, MinedHash: tx.Latest().Hash, Block: kassa.BlockRef{Number: 11, Hash: "0xb11"}}, kassa.SettlementSettled},
		}
		for i, s := range steps {
			must(t, f.db.RecordTx(f.ctx, tx.ID, s.o))
			if got := f.receiptSettlement(t, r); got != s.want {
				t.Fatalf("step %d (%s): receipt %s, want %s", i, s.o.Status, got, s.want)
			}
		}
		rs, _ := f.db.InvoicePayments(f.ctx, r.MerchantID, r.InvoiceID, 10)
		if rs[0].SettlementTxHash == nil || *rs[0].SettlementTxHash != tx.Latest().Hash {
			t.Fatalf("settlement_tx_hash %v, want %s", rs[0].SettlementTxHash, tx.Latest().Hash)
		}

		// Reverted transfers: queued again twice, failed the third time.
		p2, r2 := f.queuedSweep(t, "0x02", "0x2222222222222222222222222222222222222222")
		for attempt := 1; attempt <= outbox.MaxPayoutAttempts; attempt++ {
			tx := f.addTx(t, p2, outbox.TxTransfer, 0)
			must(t, f.db.RecordTx(f.ctx, tx.ID, outbox.Outcome{Status: outbox.TxReverted, MinedHash: tx.Latest().Hash,
				Block: block, Reason: "reverted"}))
			open, err := f.db.OpenPayouts(f.ctx, kassa.Devnet, p2.Network)
			must(t, err)
			if attempt < outbox.MaxPayoutAttempts && (len(open) != 1 || open[0].Status != outbox.PayoutQueued || open[0].Attempts != attempt) {
				t.Fatalf("attempt %d: open payouts %+v, want it queued again", attempt, open)
			}
			if attempt == outbox.MaxPayoutAttempts && len(open) != 0 {
				t.Fatalf("still open after %d reverted transfers", attempt)
			}
		}
		if got := f.receiptSettlement(t, r2); got != kassa.SettlementFailed {
			t.Fatalf("receipt %s after the retries, want failed", got)
		}
	})
}

// TestQueueSweepGroups: receipts of one deposit address, token and destination
// share one queued sweep, their amounts added; a receipt is never in two.
func TestQueueSweepGroups(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		f := newFixture(t, cfg)
		deposit := "0x3333333333333333333333333333333333333333"
		p1, _ := f.queuedSweep(t, "0x01", deposit)
		p2, r2 := f.queuedSweep(t, "0x02", deposit)
		if p1.ID != p2.ID || p2.Amount.Cmp(big.NewInt(2*1000*1_000_000_000_000_000)) != 0 {
			t.Fatalf("second sweep %s of %s, want %s with both amounts", p2.ID, p2.Amount, p1.ID)
		}
		j := settlement.SettlementJob{ReceiptID: r2.ID, DepositAddress: deposit, To: p2.To, Network: p2.Network,
			Environment: kassa.Devnet, TokenID: 1, AmountUnits: big.NewInt(1)}
		if _, err := f.db.QueueSweep(f.ctx, j); kassa.ErrorKindOf(err) != kassa.KindConflict {
			t.Fatalf("queueing a receipt twice: %v, want a conflict", err)
		}
		f.addTx(t, p2, outbox.TxTransfer, 0) // signed: the next receipt gets a new sweep
		p3, _ := f.queuedSweep(t, "0x03", deposit)
		if p3.ID == p1.ID {
			t.Fatal("a receipt joined a sweep already signed")
		}
	})
}

// TestTransferRefusedWhenPayoutChanged: a transfer signed from a sweep read
// before another receipt joined it is refused and nothing is stored, so the
// receipt that joined is never settled by a transfer that did not carry it; a
// second transfer of a payout already sending (another sender) is refused too.
func TestTransferRefusedWhenPayoutChanged(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		f := newFixture(t, cfg)
		deposit := "0x4444444444444444444444444444444444444444"
		read, _ := f.queuedSweep(t, "0x01", deposit) // what the sender read
		grown, _ := f.queuedSweep(t, "0x02", deposit)
		if grown.ID != read.ID {
			t.Fatalf("the second receipt did not join the sweep")
		}
		sign := func(n uint64) (outbox.Attempt, error) {
			return outbox.Attempt{Hash: "0x" + strings.Repeat("ab", 32), Raw: []byte{byte(n)}, Tip: big.NewInt(1), FeeCap: big.NewInt(2)}, nil
		}
		stale := &outbox.Tx{Environment: kassa.Devnet, Network: read.Network, From: read.From, Purpose: outbox.TxTransfer,
			PayoutID: read.ID, PayoutAmount: read.Amount, To: read.To, Value: new(big.Int), GasLimit: 60_000}
		if _, err := f.db.AddTx(f.ctx, stale, 0, sign); kassa.ErrorKindOf(err) != kassa.KindConflict {
			t.Fatalf("a transfer of the amount before the second receipt joined: %v, want a conflict", err)
		}
		if next, err := f.db.NextNonce(f.ctx, read.Network, read.From); err != nil || next != 0 {
			t.Fatalf("the refused transfer took nonce: next %d (%v), want 0", next, err)
		}
		f.addTx(t, grown, outbox.TxTransfer, 0)
		again := *stale
		again.PayoutAmount = grown.Amount
		if _, err := f.db.AddTx(f.ctx, &again, 0, sign); kassa.ErrorKindOf(err) != kassa.KindConflict {
			t.Fatalf("a second transfer of a payout already sending: %v, want a conflict", err)
		}
	})
}

// TestOutboxPendingOnly: OutboxTxs with since ^uint64(0) lists only pending
// transactions, not every confirmed one in the history.
func TestOutboxPendingOnly(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		f := newFixture(t, cfg)
		p, _ := f.queuedSweep(t, "0x01", "0x5555555555555555555555555555555555555555")
		done := f.addTx(t, p, outbox.TxTransfer, 0)
		must(t, f.db.RecordTx(f.ctx, done.ID, outbox.Outcome{Status: outbox.TxConfirmed, MinedHash: done.Latest().Hash,
			Block: kassa.BlockRef{Number: 5, Hash: "0xb5"}, GasUsed: 21_000}))
		q, _ := f.queuedSweep(t, "0x02", "0x6666666666666666666666666666666666666666")
		open := f.addTx(t, q, outbox.TxTopup, 0)
		for _, c := range []struct {
			since uint64
			want  int
		}{{0, 2}, {^uint64(0), 1}} {
			txs, err := f.db.OutboxTxs(f.ctx, kassa.Devnet, p.Network, c.since)
			must(t, err)
			if len(txs) != c.want || (c.want == 1 && txs[0].ID != open.ID) {
				t.Errorf("since %d: %d transactions, want %d", c.since, len(txs), c.want)
			}
		}
	})
}

// TestRefundFailsForGood: a refund payout whose transfer fails MaxPayoutAttempts
// times leaves its order's refund FAILED with the reason on the timeline and an
// event, for a person to send; the order is not queued again.
func TestRefundFailsForGood(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		f := newFixture(t, cfg)
		o, inv := f.newOrder(t, f.m, "cus_refund")
		f.payOrder(t, inv, o.Total)
		_, err := f.db.ChangeOrder(f.ctx, f.m.ID, o.ID, func(o *commerce.Order, _ *kassa.Invoice, _ int, now time.Time) (commerce.InvoiceAction, error) {
			o.RefundAddress = "0x52908400098527886E0F7030069857D2E4169EE7"
			return commerce.InvoiceKeep, o.Advance(commerce.Step{To: commerce.OrderCancelled}, now)
		})
		must(t, err)
		const gas = "0x7777777777777777777777777777777777777777"
		tokens := []kassa.Token{{ID: 1, Symbol: "USDT", Network: "bsc-testnet", Decimals: 18}}
		if n, err := f.db.QueueRefunds(f.ctx, kassa.Devnet, "bsc-testnet", gas, tokens); err != nil || n != 1 {
			t.Fatalf("queued %d refunds (%v), want 1", n, err)
		}
		payouts, err := f.db.OpenPayouts(f.ctx, kassa.Devnet, "bsc-testnet")
		must(t, err)
		if len(payouts) != 1 || payouts[0].Kind != outbox.PayoutRefund {
			t.Fatalf("open payouts %+v, want the refund", payouts)
		}
		for range outbox.MaxPayoutAttempts {
			must(t, f.db.FailAttempt(f.ctx, payouts[0].ID, "execution reverted"))
		}
		got := f.order(t, f.m, o.ID)
		last := got.Timeline[len(got.Timeline)-1]
		if got.Refund.Status != commerce.RefundFailed || got.Status != commerce.OrderCancelled ||
			!strings.Contains(last.Message, "execution reverted") {
			t.Fatalf("order %s, refund %s, last timeline entry %+v", got.Status, got.Refund.Status, last)
		}
		if n, err := f.db.QueueRefunds(f.ctx, kassa.Devnet, "bsc-testnet", gas, tokens); err != nil || n != 0 {
			t.Fatalf("queued %d refunds again (%v), want none", n, err)
		}
		evs, _, err := f.db.Events(f.ctx, kassa.EventFilter{MerchantID: f.m.ID, Environment: kassa.Devnet,
			Scope: kassa.ScopeCommerce, Limit: 1})
		must(t, err)
		if len(evs) != 1 || evs[0].Type != kassa.EventOrderUpdated || !strings.Contains(string(evs[0].Data), `"FAILED"`) {
			t.Fatalf("the latest commerce event %+v, want the order with its refund FAILED", evs)
		}
	})
}
