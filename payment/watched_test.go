package payment_test

import (
	"testing"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/payment"
	"github.com/kassapay/kassa/store"
	"github.com/kassapay/kassa/store/storetest"
)

// TestWatchedNetworks: a mainnet network without a watcher cannot be paid on (no
// one would see the money), and a watched devnet network takes real transactions
// only, not simulated ones.
func TestWatchedNetworks(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		f := newFixture(t, cfg)
		f.svc.Chain = watching{"ethereum", "devchain"}
		inv := f.invoice(t, kassa.Mainnet, 10_000, nil)
		if _, err := f.svc.LockAddress(f.ctx, inv, 101); kassa.ErrorCode(err) != "network_unwatched" { // USDT on bsc
			t.Fatalf("LockAddress on an unwatched mainnet network: %v, want network_unwatched", err)
		}
		f.lock(t, inv, 104) // USDT on ethereum, watched

		dev := f.invoice(t, kassa.Devnet, 10_000, nil)
		f.lock(t, dev, 7) // USDT on the dev chain
		_, _, err := f.svc.DevnetPay(f.ctx, dev.MerchantID, dev.ID, payment.DevnetPayment{})
		if e := kassa.AsError(err); e.Code != "network_watched" || e.Kind != kassa.KindInvalid {
			t.Fatalf("DevnetPay on a watched network: %v, want 400 network_watched", err)
		}
		if paid, err := f.svc.PayInvoice(f.ctx, dev.MerchantID, dev.ID, nil); paid || kassa.ErrorCode(err) != "network_watched" {
			t.Fatalf("PayInvoice on a watched network: %v %v", paid, err)
		}
		other := f.invoice(t, kassa.Devnet, 10_000, nil) // unwatched bsc-testnet keeps simulations
		f.devnetPay(t, other, payment.DevnetPayment{})
		tok, _ := f.reg.Token(kassa.Devnet, 7)
		if _, err := f.svc.Rate(f.ctx, tok); err != nil {
			t.Fatalf("a watched devnet token has no rate: %v", err)
		}
	})
}
