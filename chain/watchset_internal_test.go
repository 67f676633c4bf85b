package chain

import (
	"fmt"
	"math/big"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/watch"
)

func TestAddrKey(t *testing.T) {
	for _, c := range []struct {
		in, want string
		ok       bool
	}{
		{"0x52908400098527886E0F7030069857D2E4169EE7", "0x52908400098527886e0f7030069857d2e4169ee7", true},
		{"0X52908400098527886e0f7030069857d2e4169ee7", "0x52908400098527886e0f7030069857d2e4169ee7", true},
		{"0x0000000000000000000000000000000000000000", "0x0000000000000000000000000000000000000000", true},
		{"52908400098527886E0F7030069857D2E4169EE7", "", false},
		{"0x52908400098527886E0F7030069857D2E4169EE", "", false},
		{"0x52908400098527886E0F7030069857D2E4169EEG", "", false},
		{"", "", false},
	} {
		k, ok := parseAddr(c.in)
		if ok != c.ok || ok && addrString(k) != c.want {
			t.Errorf("parseAddr(%q) = %s, %v; want %s, %v", c.in, addrString(k), ok, c.want, c.ok)
		}
	}
}

func TestInvoiceKeys(t *testing.T) {
	var ids invoiceIDs
	for _, c := range []struct {
		id   string
		uuid bool // its own key, no table entry
	}{
		{kassa.NewTimeUUID(time.Now()), true},
		{kassa.NewUUID(), true},
		{"00000000-0000-0000-0000-000000000000", false}, // variant 0
		{"018f3a6e-1c2d-7abc-c123-456789abcdef", false}, // variant 110
		{"018f3a6e-1c2d-7abc-e123-456789abcdef", false}, // variant 111, the table's own
		{"018F3A6E-1C2D-7ABC-8123-456789ABCDEF", false}, // upper case
		{"018f3a6e1c2d7abc8123456789abcdef", false},
		{"inv_1", false},
		{"", false},
	} {
		k := ids.key(c.id)
		if got := ids.id(k); got != c.id {
			t.Errorf("id(key(%q)) = %q", c.id, got)
		}
		if _, inTable := ids.odd[k]; inTable == c.uuid {
			t.Errorf("%q: in the table %v, want %v", c.id, inTable, !c.uuid)
		}
		if k2, ok := ids.lookup(c.id); !ok || k2 != k {
			t.Errorf("lookup(%q) = %x, %v; want %x", c.id, k2, ok, k)
		}
	}
	odd := ids.key("inv_1")
	ids.forget(odd)
	if _, ok := ids.lookup("inv_1"); ok {
		t.Error("inv_1 still known after forget")
	}
	if k := ids.key("inv_1"); k == odd {
		t.Error("a forgotten key was given again")
	}
	if len(ids.odd) != len(ids.keys) {
		t.Errorf("table halves %d and %d", len(ids.odd), len(ids.keys))
	}
}

func TestDueHeapOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var h dueHeap
	var want []int64
	for range 1000 {
		at := r.Int64N(100)
		h.push(dueInvoice{at: at})
		want = append(want, at)
		if r.IntN(3) == 0 {
			slices.Sort(want)
			if got := h.pop().at; got != want[0] {
				t.Fatalf("pop = %d, want %d", got, want[0])
			}
			want = want[1:]
		}
	}
	slices.Sort(want)
	for _, w := range want {
		if got := h.pop().at; got != w {
			t.Fatalf("pop = %d, want %d", got, w)
		}
	}
	if len(h) != 0 {
		t.Fatalf("%d left", len(h))
	}
}

// TestWatchSetMatchesPlainMap: random puts and removes on a watchSet and on a
// plain map of watch.Address by lower-case address (the set's earlier form), with
// every address's entry read back as the watch.Address the step values a transfer
// by: rates small and too large for an entry, UUIDs and other ids, requotes,
// invoices moving to another address and addresses handed to another invoice.
func TestWatchSetMatchesPlainMap(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	const native = 60
	s := &watchSet{addressSet: newAddressSet(nil, []kassa.Token{{ID: native, Type: kassa.TokenNative}}, nil),
		byInvoice: map[invoiceKey]addrKey{}}
	plain := map[string]watch.Address{}
	plainInv := map[string]string{} // invoice id: lower-case address
	addrs := make([]string, 40)
	for i := range addrs {
		addrs[i] = fmt.Sprintf("0x%040X", 0xabc0+i)
	}
	invs := make([]string, 30)
	for i := range invs {
		if i%5 == 0 {
			invs[i] = fmt.Sprintf("inv_%d", i)
		} else {
			invs[i] = kassa.NewUUID()
		}
	}
	rates := []*big.Rat{big.NewRat(1, 1), big.NewRat(345678, 100), big.NewRat(-1, 3),
		new(big.Rat).SetFrac(new(big.Int).Lsh(big.NewInt(1), 70), big.NewInt(3)),
		new(big.Rat).SetFrac(big.NewInt(7), new(big.Int).Lsh(big.NewInt(1), 65)), nil}
	base := time.Date(2026, 11, 29, 12, 0, 0, 123456000, time.UTC)
	for step := range 5000 {
		if r.IntN(4) == 0 {
			id := invs[r.IntN(len(invs))]
			if k, ok := s.ids.lookup(id); ok {
				s.remove(k)
			}
			if a, ok := plainInv[id]; ok {
				delete(plain, a)
				delete(plainInv, id)
			}
		} else {
			a := watch.Address{Address: addrs[r.IntN(len(addrs))], InvoiceID: invs[r.IntN(len(invs))],
				MerchantID: r.Int64N(3) + 1, TokenID: []int64{native, 2, 3}[r.IntN(3)], USDPerToken: rates[r.IntN(len(rates))],
				QuoteExpiresAt: base.Add(time.Duration(r.IntN(1000)) * time.Second), InvoiceExpiresAt: base}
			s.put(a)
			key := lower(a.Address)
			if prev, ok := plainInv[a.InvoiceID]; ok && prev != key {
				delete(plain, prev)
			}
			if old, ok := plain[key]; ok && old.InvoiceID != a.InvoiceID {
				delete(plainInv, old.InvoiceID)
			}
			plain[key], plainInv[a.InvoiceID] = a, key
		}
		if len(s.byAddress) != len(plain) || len(s.byInvoice) != len(plainInv) {
			t.Fatalf("step %d: %d addresses and %d invoices, want %d and %d", step, len(s.byAddress), len(s.byInvoice), len(plain), len(plainInv))
		}
		nativeN := 0
		for key, want := range plain {
			k, e, ok := s.watching(key)
			if !ok {
				t.Fatalf("step %d: %s not watched", step, key)
			}
			got := s.address(k, e)
			if got.Address != key || got.InvoiceID != want.InvoiceID || got.MerchantID != want.MerchantID || got.TokenID != want.TokenID ||
				!got.QuoteExpiresAt.Equal(want.QuoteExpiresAt) || (got.USDPerToken == nil) != (want.USDPerToken == nil) ||
				got.USDPerToken != nil && got.USDPerToken.Cmp(want.USDPerToken) != 0 {
				t.Fatalf("step %d: %s is %+v, want %+v", step, key, got, want)
			}
			if want.TokenID == native {
				nativeN++
			}
		}
		if s.nativeN != nativeN {
			t.Fatalf("step %d: %d native, want %d", step, s.nativeN, nativeN)
		}
		if len(s.ids.odd) > len(invs) || len(s.bigRates) > len(s.byAddress) {
			t.Fatalf("step %d: %d odd ids, %d big rates kept", step, len(s.ids.odd), len(s.bigRates))
		}
	}
}
