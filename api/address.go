package api

import (
	"context"
	"math/big"
	"net/http"
	"strings"
	"time"

	"kassa/api/httpx"

	"kassa"
)

// quoteLock is how long a payment-address quote holds its rate.
const quoteLock = 15 * time.Minute

// paymentAddressJSON answers POST /api/v1/payments/payment-address.
type paymentAddressJSON struct {
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

// paymentAddress serves POST /api/v1/payments/payment-address {token_id}: it locks
// the token for the invoice and returns the deposit address on the token's network
// with the amount to send at a rate locked for quoteLock.
func (s *server) paymentAddress(w http.ResponseWriter, r *http.Request, inv *kassa.Invoice) error {
	tokenID, err := decodeTokenID(r)
	if err != nil {
		return err
	}
	out, err := s.lockAddress(r.Context(), inv, tokenID)
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, out)
	return nil
}

// requiredUnanswered reports whether a required question of inv has no answer yet.
func requiredUnanswered(inv *kassa.Invoice) bool {
	answered := map[string]bool{}
	for _, r := range inv.FormResponses {
		if strings.TrimSpace(r.Response) != "" {
			answered[r.QuestionID] = true
		}
	}
	for _, q := range inv.Questions {
		if q.Validation.Required && !answered[q.ID] {
			return true
		}
	}
	return false
}

// errAnswersRequired refuses a token choice while a required question is
// unanswered: the merchant asked before being paid.
func errAnswersRequired() error {
	return &kassa.Error{Kind: kassa.KindConflict, Code: "answers_required", Param: "responses",
		Message: "Answer the invoice's required questions (POST /api/v1/payments/submit-form) before choosing a token."}
}

// lockAddress locks tokenID for the invoice and returns its deposit address and
// quote: the payor API and the payment page both pay through it. An open invoice
// with a required question unanswered gets none (409 answers_required); a paid or
// ended one is refused by the store.
func (s *server) lockAddress(ctx context.Context, inv *kassa.Invoice, tokenID int64) (paymentAddressJSON, error) {
	if (inv.Status == kassa.StatusUnpaid || inv.Status == kassa.StatusUnderpaid) && requiredUnanswered(inv) {
		return paymentAddressJSON{}, errAnswersRequired()
	}
	wallet := s.cfg.Wallets[inv.Environment]
	if s.cfg.Registry == nil || s.cfg.Rates == nil || s.cfg.Addresses == nil || wallet == nil {
		return paymentAddressJSON{}, httpx.ErrPermission("payments_unavailable", "Payments are not configured for this environment.")
	}
	tok, ok := s.cfg.Registry.Token(inv.Environment, tokenID)
	if !ok {
		return paymentAddressJSON{}, httpx.ErrInvalid("token_id", "invalid_token", "No token of this invoice's environment has this id.")
	}
	network, _ := s.cfg.Registry.Network(inv.Environment, tok.Network)
	req := kassa.AddressRequest{MerchantID: inv.MerchantID, InvoiceID: inv.ID, Token: tok,
		Derive: func(index uint32) (string, error) { return wallet.Address(network, index) },
		Quote: func(remaining kassa.Millis) (*big.Int, *big.Rat, time.Time, error) {
			rate, err := s.cfg.Rates.Rate(ctx, tok)
			if err != nil {
				return nil, nil, time.Time{}, err
			}
			return kassa.TokenUnits(remaining, tok.Decimals, rate.USDPerToken), rate.USDPerToken, s.Now().Add(quoteLock), nil
		}}
	addr, _, err := s.cfg.Addresses.LockPaymentAddress(ctx, req)
	if err != nil {
		return paymentAddressJSON{}, err
	}
	return quoteJSON(tok, network, addr)
}

// quoteJSON renders a deposit address and its quote.
func quoteJSON(tok kassa.Token, network kassa.Network, addr *kassa.PaymentAddress) (paymentAddressJSON, error) {
	uri, err := kassa.PaymentURI(tok, network.ChainID, addr.Address, addr.AmountUnits)
	if err != nil {
		return paymentAddressJSON{}, err
	}
	return paymentAddressJSON{Address: addr.Address, Network: tok.Network, ChainID: network.ChainID,
		TokenID: tok.ID, TokenSymbol: tok.Symbol, TokenAddress: tok.Address, TokenDecimals: tok.Decimals,
		AmountToken: kassa.FormatUnits(addr.AmountUnits, tok.Decimals), AmountTokenUnits: addr.AmountUnits.String(),
		Rate: addr.USDPerToken.FloatString(8), ExpiresAt: kassa.FormatTime(addr.ExpiresAt), PaymentURI: uri}, nil
}

// heldQuote is the invoice's address in its locked token with the quote it was
// last given, when that quote still holds (same token, not expired, for what is
// still owed); ok is false otherwise. It only reads.
func (s *server) heldQuote(ctx context.Context, inv *kassa.Invoice) (out paymentAddressJSON, ok bool, err error) {
	if s.cfg.Registry == nil || s.cfg.Addresses == nil || inv.LockedTokenID == nil {
		return out, false, nil
	}
	tok, found := s.cfg.Registry.Token(inv.Environment, *inv.LockedTokenID)
	if !found {
		return out, false, nil
	}
	network, _ := s.cfg.Registry.Network(inv.Environment, tok.Network)
	addr, err := s.cfg.Addresses.PaymentAddress(ctx, inv.ID, tok.Network)
	if err != nil || !addr.QuoteCurrent(tok.ID, inv.AmountRemaining(), s.Now()) {
		return out, false, err
	}
	out, err = quoteJSON(tok, network, addr)
	return out, err == nil, err
}

// currentAddress is the invoice's address in its locked token: read as it is
// while its quote holds, quoted again (a write) only when it does not.
func (s *server) currentAddress(ctx context.Context, inv *kassa.Invoice) (paymentAddressJSON, error) {
	if out, ok, err := s.heldQuote(ctx, inv); ok || err != nil {
		return out, err
	}
	return s.lockAddress(ctx, inv, *inv.LockedTokenID)
}

func decodeTokenID(r *http.Request) (int64, error) {
	body, err := httpx.ReadBody(r)
	if err != nil {
		return 0, err
	}
	fields, err := httpx.ParseObject(body, "")
	if err != nil {
		return 0, err
	}
	var id *int64
	for _, f := range fields {
		if f.Key != "token_id" {
			return 0, httpx.ErrUnknownParam(f.Key)
		}
		n, err := httpx.Integer(f, "invalid_token")
		if err != nil {
			return 0, err
		}
		id = &n
	}
	if id == nil {
		return 0, httpx.ErrInvalid("token_id", "missing_param", "token_id is required.")
	}
	return *id, nil
}
