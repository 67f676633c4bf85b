package payment

import (
	"context"
	"math/big"
	"time"

	"github.com/kassapay/kassa"
)

// Service gives payors addresses and quotes and makes devnet payments.
type Service struct {
	Registry  kassa.Registry                       // networks and tokens
	Rates     kassa.RateSource                     // USD prices of tokens
	Addresses PaymentAddressService                // deposit addresses and token locks
	Wallets   map[kassa.Environment]AddressDeriver // deposit address derivation per environment
	Invoices  kassa.InvoiceService                 // invoices, for devnet payments
	Payments  kassa.PaymentService                 // the ingestion path; nil: no devnet payments
	Chain     ChainVerifier                        // the watched networks; nil: none
	Costs     SweepCoster                          // settlement gas per receipt; nil: unknown
	Now       func() time.Time                     // nil: time.Now
}

func (s *Service) now() time.Time {
	if s.Now == nil {
		return time.Now()
	}
	return s.Now()
}

// Quote is an invoice's deposit address in one token with the amount to send,
// as POST /api/v1/payments/payment-address answers it.
type Quote struct {
	Address          string `json:"address"`
	Network          string `json:"network"`
	ChainID          int64  `json:"chain_id"`
	TokenID          int64  `json:"token_id"`
	TokenSymbol      string `json:"token_symbol"`
	TokenAddress     string `json:"token_address"`
	TokenDecimals    int    `json:"token_decimals"`
	AmountToken      string `json:"amount_token"`
	AmountTokenUnits string `json:"amount_token_units"`
	Rate             string `json:"rate"`
	ExpiresAt        string `json:"expires_at"`
	PaymentURI       string `json:"payment_uri"`
}

func errAnswersRequired() error {
	return &kassa.Error{Kind: kassa.KindConflict, Code: "answers_required", Param: "responses",
		Message: "Answer the invoice's required questions (POST /api/v1/payments/submit-form) before choosing a token."}
}

// LockAddress locks tokenID for the invoice and returns its deposit address and a
// quote locked for kassa.QuoteLock. An open invoice with a required question
// unanswered gets none (409 answers_required); a paid or ended one is refused by
// the store.
func (s *Service) LockAddress(ctx context.Context, inv *kassa.Invoice, tokenID int64) (Quote, error) {
	if (inv.Status == kassa.StatusUnpaid || inv.Status == kassa.StatusUnderpaid) && inv.RequiredUnanswered() {
		return Quote{}, errAnswersRequired()
	}
	wallet := s.Wallets[inv.Environment]
	if s.Registry == nil || s.Rates == nil || s.Addresses == nil || wallet == nil {
		return Quote{}, &kassa.Error{Kind: kassa.KindPermission, Code: "payments_unavailable",
			Message: "Payments are not configured for this environment."}
	}
	tok, ok := s.Registry.Token(inv.Environment, tokenID)
	if !ok {
		return Quote{}, kassa.Invalidf("token_id", "invalid_token", "No token of this invoice's environment has this id.")
	}
	network, _ := s.Registry.Network(inv.Environment, tok.Network)
	req := PaymentAddressRequest{MerchantID: inv.MerchantID, InvoiceID: inv.ID, Token: tok,
		Derive: func(index uint32) (string, error) { return wallet.Address(network, index) },
		Quote: func(remaining kassa.Millis) (*big.Int, *big.Rat, time.Time, error) {
			rate, err := s.Rate(ctx, tok)
			if err != nil {
				return nil, nil, time.Time{}, err
			}
			return kassa.TokenUnits(remaining, tok.Decimals, rate.USDPerToken), rate.USDPerToken, s.now().Add(kassa.QuoteLock), nil
		}}
	addr, _, err := s.Addresses.LockPaymentAddress(ctx, req)
	if err != nil {
		return Quote{}, err
	}
	return newQuote(tok, network, addr)
}

// newQuote renders a deposit address and its quote.
func newQuote(tok kassa.Token, network kassa.Network, addr *Address) (Quote, error) {
	uri, err := kassa.PaymentURI(tok, network.ChainID, addr.Address, addr.AmountUnits)
	if err != nil {
		return Quote{}, err
	}
	return Quote{Address: addr.Address, Network: tok.Network, ChainID: network.ChainID,
		TokenID: tok.ID, TokenSymbol: tok.Symbol, TokenAddress: tok.Address, TokenDecimals: tok.Decimals,
		AmountToken: kassa.FormatUnits(addr.AmountUnits, tok.Decimals), AmountTokenUnits: addr.AmountUnits.String(),
		Rate: addr.USDPerToken.FloatString(8), ExpiresAt: kassa.FormatTime(addr.ExpiresAt), PaymentURI: uri}, nil
}

// HeldQuote is the invoice's address in its locked token with the quote it was
// last given, when that quote still holds (same token, not expired, for what is
// still owed); ok is false otherwise. It only reads.
func (s *Service) HeldQuote(ctx context.Context, inv *kassa.Invoice) (out Quote, ok bool, err error) {
	if s.Registry == nil || s.Addresses == nil || inv.LockedTokenID == nil {
		return out, false, nil
	}
	tok, found := s.Registry.Token(inv.Environment, *inv.LockedTokenID)
	if !found {
		return out, false, nil
	}
	network, _ := s.Registry.Network(inv.Environment, tok.Network)
	addr, err := s.Addresses.PaymentAddress(ctx, inv.ID, tok.Network)
	if err != nil || !addr.QuoteCurrent(tok.ID, inv.AmountRemaining(), s.now()) {
		return out, false, err
	}
	out, err = newQuote(tok, network, addr)
	return out, err == nil, err
}

// CurrentAddress is the invoice's address in its locked token: read as it is
// while its quote holds, quoted again (a write) only when it does not.
func (s *Service) CurrentAddress(ctx context.Context, inv *kassa.Invoice) (Quote, error) {
	if out, ok, err := s.HeldQuote(ctx, inv); ok || err != nil {
		return out, err
	}
	if inv.LockedTokenID == nil {
		return Quote{}, kassa.Errorf(kassa.KindConflict, "no_token_locked", "No token is locked for this invoice yet.")
	}
	return s.LockAddress(ctx, inv, *inv.LockedTokenID)
}
