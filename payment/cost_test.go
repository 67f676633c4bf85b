package payment_test

import (
	"context"
	"math/big"
	"testing"
	"time"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/payment"
	"github.com/kassapay/kassa/registry"
)

type costs map[int64]*big.Int

func (c costs) SweepCost(_ kassa.Environment, _ string, id int64) (*big.Int, bool) {
	v, ok := c[id]
	return v, ok
}

// TestSettlementCost: gas in wei priced at the network coin's rate, exactly.
func TestSettlementCost(t *testing.T) {
	rates, err := registry.LoadStatic("", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	reg := registry.Default()
	// 72,254 gas at 2 gwei on devchain (0.000144508 ETH), ETH at 2,000 USD: 0.289016 USD.
	s := &payment.Service{Registry: reg, Rates: rates, Costs: costs{7: big.NewInt(72_254 * 2_000_000_000)}}
	for _, c := range []struct {
		token int64
		want  string
		ok    bool
	}{{7, "0.289016000", true}, {8, "", false}} {
		tok, _ := reg.Token(kassa.Devnet, c.token)
		got, ok := s.SettlementCost(context.Background(), tok)
		if ok != c.ok || (ok && got.FloatString(9) != c.want) {
			t.Errorf("token %d: %v %v, want %s %v", c.token, got, ok, c.want, c.ok)
		}
	}
	if _, ok := (&payment.Service{Registry: reg, Rates: rates}).SettlementCost(context.Background(), kassa.Token{ID: 7}); ok {
		t.Error("a cost without a sender")
	}
}
