package payment_test

import (
	"testing"
	"time"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/payment"
	"github.com/kassapay/kassa/store"
	"github.com/kassapay/kassa/store/storetest"
)

// questions asks for an email (required) and a note (optional).
func questions(c *kassa.InvoiceCreate) {
	c.Questions = []kassa.Question{
		{ID: "email", Question: "Your email?", Type: "email", Validation: kassa.QuestionValidation{Required: true}},
		{ID: "note", Question: "Anything else?", Type: "text"},
	}
}

// TestLockAddressAnswersRequired: an open invoice with a required question
// unanswered gets no address (409 answers_required on responses); once answered
// it does. Optional questions never hold it back, and a paid invoice is refused
// for being paid, not for its questions.
func TestLockAddressAnswersRequired(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		f := newFixture(t, cfg)

		inv := f.invoice(t, kassa.Devnet, 10_000, questions)
		_, err := f.svc.LockAddress(f.ctx, inv, 1)
		wantError(t, err, kassa.KindConflict, "answers_required", "responses")
		if got := f.reload(t, inv); got.LockedTokenID != nil {
			t.Fatalf("refused invoice locked token %d", *got.LockedTokenID)
		}

		answered, err := f.db.SubmitForm(f.ctx, inv.MerchantID, inv.ID, []kassa.FormResponse{{QuestionID: "email", Response: "ada@example.com"}})
		if err != nil {
			t.Fatal(err)
		}
		if q := f.lock(t, answered, 1); q.Address == "" || q.TokenID != 1 {
			t.Fatalf("quote after answering: %+v", q)
		}

		optional := f.invoice(t, kassa.Devnet, 10_000, func(c *kassa.InvoiceCreate) {
			c.Questions = []kassa.Question{{ID: "note", Question: "Anything else?", Type: "text"}}
		})
		f.lock(t, optional, 1)

		paid := f.invoice(t, kassa.Devnet, 10_000, questions)
		_, paid = f.devnetPay(t, paid, payment.DevnetPayment{})
		if paid.Status != kassa.StatusPaid {
			t.Fatalf("devnet payment left the invoice %s", paid.Status)
		}
		_, err = f.svc.LockAddress(f.ctx, paid, 1)
		wantError(t, err, kassa.KindConflict, "invoice_paid", "")
	})
}

// TestLockAddressInvalidToken: a token id the invoice's environment does not have
// is refused as 400 invalid_token on token_id.
func TestLockAddressInvalidToken(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		f := newFixture(t, cfg)
		for _, tc := range []struct {
			name  string
			env   kassa.Environment
			token int64
		}{
			{"unknown", kassa.Devnet, 999},
			{"zero", kassa.Devnet, 0},
			{"negative", kassa.Devnet, -1},
			{"mainnet token on devnet", kassa.Devnet, 101},
			{"devnet token on mainnet", kassa.Mainnet, 1},
		} {
			t.Run(tc.name, func(t *testing.T) {
				inv := f.invoice(t, tc.env, 10_000, nil)
				_, err := f.svc.LockAddress(f.ctx, inv, tc.token)
				wantError(t, err, kassa.KindInvalid, "invalid_token", "token_id")
				if got := f.reload(t, inv); got.LockedTokenID != nil {
					t.Fatalf("refused token locked %d", *got.LockedTokenID)
				}
			})
		}
	})
}

// TestLockAddressUnconfigured: an environment without a wallet gets 403
// payments_unavailable.
func TestLockAddressUnconfigured(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		f := newFixture(t, cfg)
		delete(f.wallets, kassa.Mainnet)
		inv := f.invoice(t, kassa.Mainnet, 10_000, nil)
		_, err := f.svc.LockAddress(f.ctx, inv, 101)
		wantError(t, err, kassa.KindPermission, "payments_unavailable", "")
	})
}

// TestLockAddressQuote: the quote is kassa.TokenUnits of what is owed at the
// token's rate, locked for kassa.QuoteLock from now, with the token and network
// the registry gives, and the invoice is locked to the token.
func TestLockAddressQuote(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		f := newFixture(t, cfg)
		for _, tc := range []struct {
			name  string
			env   kassa.Environment
			token int64
		}{
			{"stablecoin 18 decimals", kassa.Devnet, 1},
			{"native coin", kassa.Devnet, 3},
			{"stablecoin 6 decimals", kassa.Devnet, 4},
			{"native coin other network", kassa.Devnet, 6},
			{"mainnet stablecoin", kassa.Mainnet, 104},
			{"mainnet native coin", kassa.Mainnet, 103},
		} {
			t.Run(tc.name, func(t *testing.T) {
				const amount = kassa.Millis(12_345)
				inv := f.invoice(t, tc.env, amount, nil)
				tok := f.token(t, tc.env, tc.token)
				network, _ := f.reg.Network(tc.env, tok.Network)
				rate, err := f.rates.Rate(f.ctx, tok)
				if err != nil {
					t.Fatal(err)
				}
				q := f.lock(t, inv, tc.token)
				if want := f.owedUnits(t, tok, amount); q.AmountTokenUnits != want {
					t.Fatalf("amount %s units, want %s", q.AmountTokenUnits, want)
				}
				if q.AmountToken != kassa.FormatUnits(kassa.TokenUnits(amount, tok.Decimals, rate.USDPerToken), tok.Decimals) {
					t.Fatalf("amount_token %s for %s units", q.AmountToken, q.AmountTokenUnits)
				}
				if want := kassa.FormatTime(f.clock.Now().Add(kassa.QuoteLock)); q.ExpiresAt != want {
					t.Fatalf("expires %s, want %s", q.ExpiresAt, want)
				}
				if q.TokenID != tok.ID || q.TokenSymbol != tok.Symbol || q.TokenDecimals != tok.Decimals ||
					q.TokenAddress != tok.Address || q.Network != tok.Network || q.ChainID != network.ChainID {
					t.Fatalf("quote %+v for token %+v on chain %d", q, tok, network.ChainID)
				}
				if q.Rate != rate.USDPerToken.FloatString(8) {
					t.Fatalf("rate %s, want %s", q.Rate, rate.USDPerToken.FloatString(8))
				}
				if err := kassa.CheckEVMAddress("address", q.Address); err != nil {
					t.Fatalf("address %q: %v", q.Address, err)
				}
				wantURI, err := kassa.PaymentURI(tok, network.ChainID, q.Address, kassa.TokenUnits(amount, tok.Decimals, rate.USDPerToken))
				if err != nil || q.PaymentURI != wantURI {
					t.Fatalf("payment uri %q, want %q (%v)", q.PaymentURI, wantURI, err)
				}
				if got := f.reload(t, inv); got.LockedTokenID == nil || *got.LockedTokenID != tc.token {
					t.Fatalf("invoice locked %v, want token %d", got.LockedTokenID, tc.token)
				}
			})
		}
	})
}

// TestLockAddressAgain: asking again gives the same address: with the same quote
// while it holds, a fresh one after it ran out, a new token of the same network
// on it too; another network has its own address, and another invoice its own.
func TestLockAddressAgain(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		f := newFixture(t, cfg)
		inv := f.invoice(t, kassa.Devnet, 10_000, nil)
		first := f.lock(t, inv, 1)

		f.clock.Advance(time.Minute)
		if again := f.lock(t, inv, 1); again != first {
			t.Fatalf("asked again while held:\n got %+v\nwant %+v", again, first)
		}

		f.clock.Advance(kassa.QuoteLock)
		requoted := f.lock(t, inv, 1)
		if requoted.Address != first.Address || requoted.AmountTokenUnits != first.AmountTokenUnits {
			t.Fatalf("requoted %+v, first %+v", requoted, first)
		}
		if want := kassa.FormatTime(f.clock.Now().Add(kassa.QuoteLock)); requoted.ExpiresAt != want {
			t.Fatalf("requote expires %s, want %s", requoted.ExpiresAt, want)
		}

		other := f.lock(t, inv, 2)
		if other.Address != first.Address || other.TokenID != 2 || other.TokenSymbol != "USDC" {
			t.Fatalf("token 2 on the same network: %+v, first %+v", other, first)
		}
		if sepolia := f.lock(t, inv, 4); sepolia.Address == first.Address || sepolia.Network != "ethereum-sepolia" {
			t.Fatalf("another network: %+v, first %+v", sepolia, first)
		}
		if second := f.lock(t, f.invoice(t, kassa.Devnet, 10_000, nil), 1); second.Address == first.Address {
			t.Fatalf("two invoices share address %s", first.Address)
		}
	})
}

// TestHeldQuote: the quote reads back while it holds and not once the lock ran
// out or what is owed changed; CurrentAddress then quotes again, and reads the
// held quote as it is otherwise.
func TestHeldQuote(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		f := newFixture(t, cfg)
		inv := f.invoice(t, kassa.Devnet, 10_000, nil)
		wantHeld := func(t *testing.T, inv *kassa.Invoice, want payment.Quote, ok bool) {
			t.Helper()
			got, held, err := f.svc.HeldQuote(f.ctx, inv)
			if err != nil {
				t.Fatal(err)
			}
			if held != ok || (ok && got != want) {
				t.Fatalf("HeldQuote = %+v, %v; want %+v, %v", got, held, want, ok)
			}
		}
		wantHeld(t, inv, payment.Quote{}, false) // no token locked yet

		q := f.lock(t, inv, 1)
		wantHeld(t, inv, payment.Quote{}, false) // the copy from before the lock names no token
		inv = f.reload(t, inv)
		wantHeld(t, inv, q, true)
		if cur, err := f.svc.CurrentAddress(f.ctx, inv); err != nil || cur != q {
			t.Fatalf("CurrentAddress while held = %+v, %v; want %+v", cur, err, q)
		}

		f.clock.Advance(kassa.QuoteLock - time.Second)
		wantHeld(t, inv, q, true)
		f.clock.Advance(time.Second)
		wantHeld(t, inv, payment.Quote{}, false)

		cur, err := f.svc.CurrentAddress(f.ctx, inv)
		if err != nil {
			t.Fatal(err)
		}
		if cur.Address != q.Address || cur.AmountTokenUnits != q.AmountTokenUnits ||
			cur.ExpiresAt != kassa.FormatTime(f.clock.Now().Add(kassa.QuoteLock)) {
			t.Fatalf("CurrentAddress after the lock ran out: %+v, first %+v", cur, q)
		}
		wantHeld(t, inv, cur, true)

		// A partial payment changes what is owed: the quote no longer holds, and
		// the next one is for the rest.
		_, inv = f.devnetPay(t, inv, payment.DevnetPayment{Amount: new(kassa.Millis(4_000))})
		if inv.Status != kassa.StatusUnderpaid {
			t.Fatalf("after a partial payment the invoice is %s", inv.Status)
		}
		wantHeld(t, inv, payment.Quote{}, false)
		rest, err := f.svc.CurrentAddress(f.ctx, inv)
		if err != nil {
			t.Fatal(err)
		}
		if want := f.owedUnits(t, f.token(t, kassa.Devnet, 1), 6_000); rest.Address != q.Address || rest.AmountTokenUnits != want {
			t.Fatalf("quote for the rest: %+v, want %s units at %s", rest, want, q.Address)
		}
		wantHeld(t, inv, rest, true)
	})
}

// TestHeldQuoteUnknownToken: an invoice locked to a token the registry does not
// have (a registry changed since) holds no quote.
func TestHeldQuoteUnknownToken(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		f := newFixture(t, cfg)
		inv := f.invoice(t, kassa.Devnet, 10_000, nil)
		f.lock(t, inv, 1)
		inv = f.reload(t, inv)
		gone := int64(999)
		inv.LockedTokenID = &gone
		if q, ok, err := f.svc.HeldQuote(f.ctx, inv); ok || err != nil {
			t.Fatalf("HeldQuote for an unknown token = %+v, %v, %v", q, ok, err)
		}
	})
}

// TestCurrentAddressNeedsALock checks that an invoice with no token locked gets a
// conflict, not a quote of some token.
func TestCurrentAddressNeedsALock(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		f := newFixture(t, cfg)
		inv := f.invoice(t, kassa.Devnet, 10_000, nil)
		_, err := f.svc.CurrentAddress(f.ctx, inv)
		wantError(t, err, kassa.KindConflict, "no_token_locked", "")
	})
}
