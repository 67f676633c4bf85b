package store_test

import (
	"fmt"
	"math/big"
	"sync"
	"testing"
	"time"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/payment"
	"github.com/kassapay/kassa/store"
	"github.com/kassapay/kassa/store/storetest"
)

// addressRequest asks for inv's address in a devnet token, deriving index n as a
// recognisable fake address.
func addressRequest(inv *kassa.Invoice, tokenID int64) payment.PaymentAddressRequest {
	return payment.PaymentAddressRequest{MerchantID: inv.MerchantID, InvoiceID: inv.ID,
		Token:  kassa.Token{ID: tokenID, Network: "bsc-testnet", Decimals: 18},
		Derive: func(i uint32) (string, error) { return fmt.Sprintf("0x%040x", i), nil },
		Quote: func(remaining kassa.Millis) (*big.Int, *big.Rat, time.Time, error) {
			return big.NewInt(int64(remaining)), big.NewRat(1, 1), t0.Add(15 * time.Minute), nil
		}}
}

// TestLockPaymentAddressConcurrent: invoices asking for addresses at once each get
// their own derivation index, and asking again gives the same address, on both engines.
func TestLockPaymentAddressConcurrent(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		f := newFixture(t, cfg)
		const n = 8
		invs := make([]*kassa.Invoice, n)
		for i := range invs {
			invs[i] = f.invoice(t, f.m, 1000, nil)
		}
		addrs := make([]*payment.Address, n)
		errs := make([]error, n)
		var wg sync.WaitGroup
		for i := range invs {
			wg.Go(func() { addrs[i], _, errs[i] = f.db.LockPaymentAddress(f.ctx, addressRequest(invs[i], 1)) })
		}
		wg.Wait()
		seen := map[uint32]bool{}
		for i, a := range addrs {
			must(t, errs[i])
			if seen[a.Index] || a.Address != fmt.Sprintf("0x%040x", a.Index) || a.AmountUSD != 1000 {
				t.Fatalf("address %+v (index repeated: %v)", a, seen[a.Index])
			}
			seen[a.Index] = true
		}
		again, inv, err := f.db.LockPaymentAddress(f.ctx, addressRequest(invs[0], 1))
		must(t, err)
		if again.Address != addrs[0].Address || inv.LockedTokenID == nil || *inv.LockedTokenID != 1 {
			t.Fatalf("second ask %+v, invoice lock %v", again, inv.LockedTokenID)
		}
	})
}
