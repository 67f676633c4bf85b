package payment_test

import (
	"context"
	"errors"
	"math/big"
	"testing"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/payment"
	"github.com/kassapay/kassa/store"
	"github.com/kassapay/kassa/store/storetest"
)

// chainLookUp stands for the chain watchers of a deployment watching the networks
// named: a look-up it is asked for ingests pay (when set) as the watcher would.
type chainLookUp struct {
	watching
	pay     func(inv *kassa.Invoice, network, txHash string) error
	lookUps []string // network and hash of each look-up asked for
}

func (c *chainLookUp) VerifyTransaction(_ context.Context, inv *kassa.Invoice, network, txHash string) error {
	c.lookUps = append(c.lookUps, network+" "+txHash)
	if c.pay == nil {
		return nil
	}
	return c.pay(inv, network, txHash)
}

// transfer is a verify body's decoding that yields tr.
func transfer(tr payment.VerifyTransfer) func() (payment.VerifyTransfer, error) {
	return func() (payment.VerifyTransfer, error) { return tr, nil }
}

// TestVerifyRefuses: a session opens its own invoice only and a merchant its own
// invoices (404, before the body is read); a transfer needs a well-formed hash on
// a network of the invoice's environment (400); a body that does not decode, or a
// look-up that fails, fails the call as it is.
func TestVerifyRefuses(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		f := newFixture(t, cfg)
		chain := &chainLookUp{watching: watching{"devchain"}}
		f.svc.Chain = chain
		inv := f.invoice(t, kassa.Devnet, 10_000, nil)
		other := f.invoice(t, kassa.Devnet, 10_000, nil)
		badBody := kassa.Invalidf("", "invalid_json", "not JSON")
		lookUpFailed := errors.New("rpc down")
		unread := func() (payment.VerifyTransfer, error) {
			t.Error("the body was read for an invoice the credential cannot open")
			return payment.VerifyTransfer{}, nil
		}
		for _, tc := range []struct {
			name        string
			req         payment.VerifyRequest
			lookUpErr   error
			want        error
			kind        kassa.ErrorKind
			code, param string
		}{
			{name: "session of another invoice", req: payment.VerifyRequest{InvoiceID: other.ID, Session: inv, Transfer: unread},
				kind: kassa.KindNotFound, code: "resource_missing"},
			{name: "another merchant's invoice", req: payment.VerifyRequest{InvoiceID: inv.ID, MerchantID: f.m.ID + 1, Transfer: unread},
				kind: kassa.KindNotFound, code: "resource_missing"},
			{name: "no such invoice", req: payment.VerifyRequest{InvoiceID: "00000000-0000-4000-8000-000000000000", MerchantID: f.m.ID},
				kind: kassa.KindNotFound, code: "resource_missing"},
			{name: "short hash", req: payment.VerifyRequest{InvoiceID: inv.ID, Session: inv,
				Transfer: transfer(payment.VerifyTransfer{TxHash: "0x1", Network: "devchain"})},
				kind: kassa.KindInvalid, code: "invalid_tx_hash", param: "tx_hash"},
			{name: "mainnet network for a devnet invoice", req: payment.VerifyRequest{InvoiceID: inv.ID, MerchantID: f.m.ID,
				Transfer: transfer(payment.VerifyTransfer{TxHash: txHash('a'), Network: "bsc"})},
				kind: kassa.KindInvalid, code: "invalid_network", param: "network"},
			{name: "unknown network", req: payment.VerifyRequest{InvoiceID: inv.ID, Session: inv,
				Transfer: transfer(payment.VerifyTransfer{TxHash: txHash('a'), Network: "nowhere"})},
				kind: kassa.KindInvalid, code: "invalid_network", param: "network"},
			{name: "body does not decode", req: payment.VerifyRequest{InvoiceID: inv.ID, Session: inv,
				Transfer: func() (payment.VerifyTransfer, error) { return payment.VerifyTransfer{}, badBody }},
				want: badBody},
			{name: "look-up fails", req: payment.VerifyRequest{InvoiceID: inv.ID, Session: inv,
				Transfer: transfer(payment.VerifyTransfer{TxHash: txHash('b'), Network: "devchain"})},
				lookUpErr: lookUpFailed, want: lookUpFailed},
		} {
			t.Run(tc.name, func(t *testing.T) {
				chain.pay = func(*kassa.Invoice, string, string) error { return tc.lookUpErr }
				_, err := f.svc.Verify(f.ctx, tc.req)
				if tc.want != nil {
					if !errors.Is(err, tc.want) {
						t.Fatalf("Verify: %v, want %v", err, tc.want)
					}
					return
				}
				wantError(t, err, tc.kind, tc.code, tc.param)
			})
		}
		if len(chain.lookUps) != 1 {
			t.Fatalf("look-ups %q, want only the failing one's", chain.lookUps)
		}
	})
}

// verify calls Verify and fails the test on error.
func (f *fixture) verify(t *testing.T, req payment.VerifyRequest) payment.Verification {
	t.Helper()
	v, err := f.svc.Verify(f.ctx, req)
	if err != nil {
		t.Fatalf("Verify: %v", err)
	}
	if v.Object != "invoice_verification" || v.InvoiceID != req.InvoiceID {
		t.Fatalf("Verify answered %s %s for %s", v.Object, v.InvoiceID, req.InvoiceID)
	}
	return v
}

// TestVerifyChecked: a transfer on a network without a watcher is only checked
// for form; on a watched one it is looked up, and a transfer the look-up ingests
// shows in the answer's payment status at once. Without a transfer, "checked"
// says whether every payment was seen in a block, or, before any, whether the
// locked token's network is watched.
func TestVerifyChecked(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		f := newFixture(t, cfg)
		chain := &chainLookUp{watching: watching{"devchain"}}
		f.svc.Chain = chain
		inv := f.invoice(t, kassa.Devnet, 10_000, nil)
		asSession := func(tr func() (payment.VerifyTransfer, error)) payment.VerifyRequest {
			return payment.VerifyRequest{InvoiceID: inv.ID, Session: f.reload(t, inv), Transfer: tr}
		}
		asMerchant := payment.VerifyRequest{InvoiceID: inv.ID, MerchantID: f.m.ID}

		if v := f.verify(t, asMerchant); v.Checked || v.PaymentStatus.Status != kassa.StatusUnpaid {
			t.Fatalf("no token locked: %+v, want unchecked and unpaid", v)
		}
		if v := f.verify(t, asSession(transfer(payment.VerifyTransfer{TxHash: txHash('c'), Network: "bsc-testnet"}))); v.Checked {
			t.Fatalf("a transfer on an unwatched network: checked")
		}
		if len(chain.lookUps) != 0 {
			t.Fatalf("look-ups on an unwatched network: %q", chain.lookUps)
		}

		q := f.lock(t, inv, 7) // USDT on the watched dev chain
		if v := f.verify(t, asSession(nil)); !v.Checked {
			t.Fatalf("locked on a watched network, no payment yet: unchecked")
		}
		tok := f.token(t, kassa.Devnet, 7)
		chain.pay = func(inv *kassa.Invoice, network, hash string) error {
			units, _ := new(big.Int).SetString(q.AmountTokenUnits, 10)
			_, _, err := f.db.IngestPayment(f.ctx, kassa.PaymentInput{MerchantID: inv.MerchantID, InvoiceID: inv.ID,
				Network: network, TxHash: hash, TokenID: tok.ID, FromAddress: "0x" + txHash('e')[2:42],
				AmountUnits: units, AmountUSD: inv.Amount, Confirmations: 1, Confirmed: true,
				BlockNumber: 12, BlockHash: txHash('f')})
			return err
		}
		v := f.verify(t, asSession(transfer(payment.VerifyTransfer{TxHash: txHash('d'), Network: "devchain"})))
		if !v.Checked || v.PaymentStatus.Status != kassa.StatusPaid || len(v.PaymentStatus.Payments) != 1 {
			t.Fatalf("after a look-up that found the payment: %+v, want checked and paid", v)
		}
		if want := []string{"devchain " + txHash('d')}; len(chain.lookUps) != 1 || chain.lookUps[0] != want[0] {
			t.Fatalf("look-ups %q, want %q", chain.lookUps, want)
		}
		if v := f.verify(t, asMerchant); !v.Checked {
			t.Fatalf("every payment seen in a block: unchecked")
		}

		sim := f.invoice(t, kassa.Devnet, 10_000, nil)
		f.devnetPay(t, sim, payment.DevnetPayment{}) // simulated: in no block
		seen, err := f.svc.SeenOnChain(f.ctx, f.reload(t, sim))
		if err != nil || seen {
			t.Fatalf("SeenOnChain of a simulated payment: %v %v, want false", seen, err)
		}
	})
}
