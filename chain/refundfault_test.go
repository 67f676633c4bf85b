package chain_test

import (
	"bytes"
	"context"
	"errors"
	"math/big"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/chain"
	"github.com/kassapay/kassa/outbox"
	"github.com/kassapay/kassa/refund"
	"github.com/kassapay/kassa/store"
	"github.com/kassapay/kassa/store/storetest"
)

// The faults an invoice refund must survive on the dev chain (issue 39): the
// process dying between creating a refund, signing its transfer and
// broadcasting it; the network's node down; a gas wallet that cannot pay. Each
// ends with exactly one transfer of exactly the refund's units.

// TestInvoiceRefundAcrossCrashes: a sender that dies after queueing a refund's
// payout but before signing it, one that dies after storing the signed transfer
// but before broadcasting it, and one that dies after broadcasting it, before the
// confirmations: each restarted sender finishes from what was stored, and the
// payor receives one transfer of exactly the refund's units.
func TestInvoiceRefundAcrossCrashes(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		p := onPayChain(t, cfg, true)
		inv, _ := p.paidInvoice(t, 10)
		payor := newAddress(t)
		r := p.refund(t, inv, 4_000, payor)
		pool := p.d.pool(t)

		// Queued, never signed: the round dies at the first fee look-up after
		// queueing the payout.
		p.sender.Account = failFees{pool.Account()}
		for range 3 {
			p.stepExpectingSendError(t)
		}
		if st := p.refundState(t, r.ID); st.Status != kassa.RefundPending || len(p.outboxFor(t, payor)) != 0 {
			t.Fatalf("before any signing: %s, %d transfers stored", st.Status, len(p.outboxFor(t, payor)))
		}

		// Signed and stored, never broadcast.
		p.sender = p.newSender(t, pool)
		p.sender.Account = dropBroadcasts{pool.Account()}
		for range 4 {
			p.step(t)
		}
		if got := p.refundState(t, r.ID); got.Status != kassa.RefundSent || got.TxHash == "" {
			t.Fatalf("after storing the transfer: %s %q", got.Status, got.TxHash)
		}
		p.wantBalance(t, usdt, payor, new(big.Int))
		stored := p.outboxFor(t, payor)
		if len(stored) != 1 {
			t.Fatalf("%d refund transfers stored, want 1", len(stored))
		}

		// Restarted: broadcast once, then the process dies before the
		// confirmations.
		p.sender = p.newSender(t, pool)
		if err := p.sender.Round(p.ctx); err != nil {
			t.Fatal(err)
		}
		p.sender = p.newSender(t, pool)
		p.until(t, 20, "refund confirmed", func() bool { return p.refundState(t, r.ID).Status == kassa.RefundConfirmed })
		for range 5 {
			p.step(t)
		}
		p.wantBalance(t, usdt, payor, dollars(4))
		final := p.outboxFor(t, payor)
		if len(final) != 1 || final[0].ID != stored[0].ID {
			t.Fatalf("refund transfers stored %d, want the one signed before the crash", len(final))
		}
		if got := p.refundState(t, r.ID); !strings.EqualFold(got.TxHash, final[0].MinedHash) {
			t.Fatalf("refund tx %s, mined %s", got.TxHash, final[0].MinedHash)
		}
		if after, _ := p.db.Invoice(p.ctx, p.m.ID, inv.ID); after.AmountRefunded != 4_000 {
			t.Fatalf("amount_refunded %d", after.AmountRefunded)
		}
	})
}

// TestInvoiceRefundNodeDown: while the network's node does not answer, a refund
// waits pending (nothing fails, nothing is signed twice); once the node is back
// it is paid once.
func TestInvoiceRefundNodeDown(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		p := onPayChain(t, cfg, true)
		inv, _ := p.paidInvoice(t, 10)
		payor := newAddress(t)
		r := p.refund(t, inv, 2_500, payor)

		if err := p.d.Close(); err != nil {
			t.Fatal(err)
		}
		for range 5 {
			if err := p.sender.Round(p.ctx); err == nil {
				t.Fatal("a sender round with the node down reported no error")
			}
		}
		if got := p.refundState(t, r.ID); got.Status != kassa.RefundPending {
			t.Fatalf("with the node down: %s %q", got.Status, got.FailureReason)
		}

		p.startDevChainAgain(t, nil)
		p.until(t, 20, "refund confirmed", func() bool { return p.refundState(t, r.ID).Status == kassa.RefundConfirmed })
		for range 3 {
			p.step(t)
		}
		p.wantBalance(t, usdt, payor, big.NewInt(2_500_000))
		if got := p.outboxFor(t, payor); len(got) != 1 {
			t.Fatalf("%d refund transfers stored, want 1", len(got))
		}
	})
}

// TestInvoiceRefundGasWalletDry: a refund the gas wallet cannot pay (no coin for
// gas, none of the token) waits pending with the reason and one refund.updated
// that says it; once the operator funds the wallet it is paid once.
func TestInvoiceRefundGasWalletDry(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		p := onPayChain(t, cfg, false)
		inv, _ := p.paidInvoice(t, 10)
		payor := newAddress(t)
		r := p.refund(t, inv, 3_000, payor)
		for range 6 {
			p.step(t)
		}
		got := p.refundState(t, r.ID)
		if got.Status != kassa.RefundPending || !strings.Contains(got.FailureReason, "holds 0 USDT, the refund needs 3") {
			t.Fatalf("with a dry gas wallet: %s %q", got.Status, got.FailureReason)
		}
		evs, _, err := p.db.Events(p.ctx, kassa.EventFilter{MerchantID: p.m.ID, Environment: kassa.Devnet,
			Scope: kassa.ScopeMerchant, Types: []string{kassa.EventRefundUpdated}, Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		if len(evs) != 1 || !strings.Contains(string(evs[0].Data), "the refund needs 3") {
			t.Fatalf("%d refund.updated events while waiting, want one with the reason", len(evs))
		}
		p.fund(t)
		p.until(t, 30, "refund confirmed once funded", func() bool {
			return p.refundState(t, r.ID).Status == kassa.RefundConfirmed
		})
		p.wantBalance(t, usdt, payor, dollars(3))
	})
}

// paidInvoice is an invoice of usd dollars paid in full in USDT on the dev chain,
// and its deposit address.
func (p *payFixture) paidInvoice(t testing.TB, usd int64) (*kassa.Invoice, string) {
	t.Helper()
	inv, addr := p.invoice(t, kassa.Millis(usd*1000), usdt)
	p.d.send(t, 0, p.tokenAddress(t, usdt), addr, dollars(usd))
	for range 20 {
		if err := p.d.Mine(); err != nil {
			t.Fatal(err)
		}
		p.sync(t)
		if st, _ := p.state(t, inv); st == kassa.StatusPaid {
			return inv, addr
		}
	}
	t.Fatal("the invoice was never paid")
	return nil, ""
}

// refund creates a refund of usd of inv in USDT to address, as the refunds
// service hands it to the store.
func (p *payFixture) refund(t testing.TB, inv *kassa.Invoice, usd kassa.Millis, address string) *kassa.Refund {
	t.Helper()
	tok, ok := p.reg.Token(kassa.Devnet, usdt)
	if !ok {
		t.Fatal("no USDT in the registry")
	}
	pr := kassa.Principal{MerchantID: p.m.ID, Environment: kassa.Devnet, Scope: kassa.ScopeMerchant}
	req := refund.Request{ID: kassa.NewUUID(), AmountUSD: &usd, Rate: kassa.RefundRatePaid, Address: address, Token: tok}
	r, err := p.db.CreateRefund(p.ctx, pr.MerchantID, inv.ID, req, refund.DecideCreate(pr, req))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func (p *payFixture) refundState(t testing.TB, id string) *kassa.Refund {
	t.Helper()
	r, err := p.db.Refund(p.ctx, kassa.Principal{MerchantID: p.m.ID, Environment: kassa.Devnet, Scope: kassa.ScopeMerchant}, id)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// outboxFor is the stored token transfers to the address to.
func (p *payFixture) outboxFor(t testing.TB, to string) []*outbox.Tx {
	t.Helper()
	var out []*outbox.Tx
	for _, tx := range p.outbox(t) {
		if tx.Purpose == outbox.TxTransfer && bytes.Contains(tx.Data, common.HexToAddress(to).Bytes()) {
			out = append(out, tx)
		}
	}
	return out
}

// stepExpectingSendError is step with a sender round that must fail.
func (p *payFixture) stepExpectingSendError(t testing.TB) {
	t.Helper()
	if err := p.d.Mine(); err != nil {
		t.Fatal(err)
	}
	p.sync(t)
	if _, err := p.settler.RunOnce(p.ctx); err != nil {
		t.Fatal(err)
	}
	if err := p.sender.Round(p.ctx); err == nil {
		t.Fatal("the sender round did not fail")
	}
}

// failFees is an Account whose fee look-up fails, as a process that dies before
// it signs anything.
type failFees struct{ chain.Account }

func (failFees) Fees(context.Context) (*big.Int, *big.Int, error) {
	return nil, nil, errors.New("killed before signing")
}
