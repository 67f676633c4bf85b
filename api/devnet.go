package api

import (
	"net/http"
	"strings"

	"kassa/api/httpx"

	"kassa"
)

// devnetPayer is the wallet devnet payments come from.
const devnetPayer = "0x52908400098527886E0F7030069857D2E4169EE7"

// devnetPaymentRequest is the body of POST /api/v1/devnet/invoices/{id}/payments;
// every field is optional.
type devnetPaymentRequest struct {
	amount    *kassa.Millis // default: what the invoice still owes (all of it once nothing is owed)
	tokenID   *int64        // default: the invoice's locked token, else the first devnet stablecoin
	confirmed bool          // status "confirmed" (default) or "pending"
	txHash    string        // default: a fresh random hash; repeat one to confirm a pending payment
}

func decodeDevnetPayment(body []byte) (devnetPaymentRequest, error) {
	req := devnetPaymentRequest{confirmed: true}
	if len(body) == 0 {
		return req, nil
	}
	fields, err := httpx.ParseObject(body, "")
	if err != nil {
		return req, err
	}
	for _, f := range fields {
		switch f.Key {
		case "amount_usd":
			if !httpx.IsNumber(f.Raw) {
				return req, httpx.ErrInvalidType("amount_usd", "a JSON number such as 12.5")
			}
			m, err := kassa.ParseUSD(string(f.Raw), "amount_usd")
			if err != nil {
				return req, err
			}
			req.amount = &m
		case "token_id":
			n, err := httpx.Integer(f, "invalid_token")
			if err != nil {
				return req, err
			}
			req.tokenID = &n
		case "status":
			s, err := httpx.ReqString(f)
			if err != nil {
				return req, err
			}
			if s != "pending" && s != "confirmed" {
				return req, httpx.ErrInvalid("status", "invalid_status", "status must be pending or confirmed.")
			}
			req.confirmed = s == "confirmed"
		case "tx_hash":
			if req.txHash, err = httpx.ReqString(f); err != nil {
				return req, err
			}
			if !validTxHash(req.txHash) {
				return req, httpx.ErrInvalid("tx_hash", "invalid_tx_hash", "tx_hash must be 0x followed by 64 hex digits.")
			}
		default:
			return req, httpx.ErrUnknownParam(f.Key)
		}
	}
	return req, nil
}

func validTxHash(s string) bool {
	if len(s) != 66 || s[:2] != "0x" {
		return false
	}
	for _, c := range s[2:] {
		if !('0' <= c && c <= '9') && !('a' <= c && c <= 'f') && !('A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}

// devnetPay serves POST /api/v1/devnet/invoices/{invoiceId}/payments: a simulated
// transfer fed to the same ingestion path a transfer found on chain takes.
func (s *server) devnetPay(w http.ResponseWriter, r *http.Request) error {
	id, err := invoiceID(r, "invoiceId")
	if err != nil {
		return err
	}
	body, err := httpx.ReadBody(r)
	if err != nil {
		return err
	}
	req, err := decodeDevnetPayment(body)
	if err != nil {
		return err
	}
	p := httpx.Principal(r.Context())
	inv, err := s.cfg.Invoices.Invoice(r.Context(), p.MerchantID, id)
	if err != nil {
		return err
	}
	if inv.Environment != kassa.Devnet || s.cfg.Registry == nil || s.cfg.Rates == nil || s.cfg.Payments == nil {
		return httpx.ErrPermission("devnet_only", "Simulated payments exist only for devnet invoices.")
	}
	if !s.Now().Before(inv.ExpiresAt.Add(kassa.WatchAfterExpiry)) {
		return kassa.Errorf(kassa.KindConflict, "watch_ended",
			"This invoice expired more than 24 hours ago; its address is no longer watched.")
	}
	in, err := s.devnetInput(r, inv, req)
	if err != nil {
		return err
	}
	rec, inv, err := s.cfg.Payments.IngestPayment(r.Context(), in)
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusCreated, map[string]any{"object": "devnet_payment", "payment": rec, "invoice": inv})
	return nil
}

// devnetInput turns a devnet payment request into the transfer it simulates.
func (s *server) devnetInput(r *http.Request, inv *kassa.Invoice, req devnetPaymentRequest) (kassa.PaymentInput, error) {
	tok, err := s.devnetToken(inv, req.tokenID)
	if err != nil {
		return kassa.PaymentInput{}, err
	}
	network, _ := s.cfg.Registry.Network(kassa.Devnet, tok.Network)
	amount := inv.AmountRemaining()
	if amount == 0 {
		amount = inv.Amount
	}
	if req.amount != nil {
		amount = *req.amount
	}
	rate, err := s.cfg.Rates.Rate(r.Context(), tok)
	if err != nil {
		return kassa.PaymentInput{}, err
	}
	hash := req.txHash
	if hash == "" {
		hash = "0x" + strings.ReplaceAll(kassa.NewUUID()+kassa.NewUUID(), "-", "")
	}
	confirmations := 0
	if req.confirmed {
		confirmations = network.Confirmations
	}
	return kassa.PaymentInput{MerchantID: inv.MerchantID, InvoiceID: inv.ID, Network: tok.Network, TxHash: hash,
		TokenID: tok.ID, FromAddress: devnetPayer, AmountUnits: kassa.TokenUnits(amount, tok.Decimals, rate.USDPerToken),
		AmountUSD: amount, Confirmations: confirmations, Confirmed: req.confirmed}, nil
}

// devnetToken picks the token a devnet payment is made in.
func (s *server) devnetToken(inv *kassa.Invoice, asked *int64) (kassa.Token, error) {
	id := int64(0)
	switch {
	case asked != nil:
		id = *asked
	case inv.LockedTokenID != nil:
		id = *inv.LockedTokenID
	}
	if id != 0 {
		if t, ok := s.cfg.Registry.Token(kassa.Devnet, id); ok {
			return t, nil
		}
		return kassa.Token{}, httpx.ErrInvalid("token_id", "invalid_token", "No devnet token has this id.")
	}
	for _, t := range s.cfg.Registry.Tokens(kassa.Devnet) {
		if t.Stable {
			return t, nil
		}
	}
	return kassa.Token{}, httpx.ErrInvalid("token_id", "invalid_token", "The devnet registry has no stablecoin; name a token_id.")
}
