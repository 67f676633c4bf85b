package chain_test

import (
	"testing"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/payment"
	"github.com/kassapay/kassa/store"
	"github.com/kassapay/kassa/store/storetest"
)

// TestSetAsideConfirmationsCounted: money sent to an invoice already paid is set
// aside for a person at its first block, and its confirmations go on being
// counted up to the network's, so the merchant can accept or dismiss it then
// (both need them); the count stops there.
func TestSetAsideConfirmationsCounted(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		p := onPayChain(t, cfg, true)
		inv, addr := p.paidInvoice(t, 10)
		p.d.send(t, 1, p.tokenAddress(t, usdt), addr, dollars(2))
		n, _ := p.reg.Network(kassa.Devnet, "devchain")
		want := n.Confirmations
		var aside *kassa.Payment
		for range 2 * want {
			if err := p.d.Mine(); err != nil {
				t.Fatal(err)
			}
			p.sync(t)
			_, rs := p.state(t, inv)
			for _, r := range rs {
				if r.Status == kassa.PaymentManualRetry {
					aside = r
				}
			}
		}
		if aside == nil || aside.AttentionReason != kassa.AttentionFinalInvoice {
			t.Fatalf("set-aside payment %+v", aside)
		}
		if aside.Confirmations != want {
			t.Fatalf("set-aside payment has %d confirmations, want the network's %d", aside.Confirmations, want)
		}
		pr := kassa.Principal{MerchantID: p.m.ID, Environment: kassa.Devnet, Scope: kassa.ScopeMerchant}
		req := kassa.ResolveRequest{How: kassa.ResolutionDismissed, Confirmations: want}
		if _, err := p.db.ResolvePayment(p.ctx, pr.MerchantID, inv.ID, aside.ID, req, payment.DecideResolve(pr, req)); err != nil {
			t.Fatalf("dismiss once confirmed: %v", err)
		}
	})
}
