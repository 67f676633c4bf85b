package payment

import (
	"context"
	"strings"

	"github.com/kassapay/kassa"
)

// DevnetPayer is the wallet devnet payments come from.
const DevnetPayer = "0x52908400098527886E0F7030069857D2E4169EE7"

// DevnetPayment is a simulated transfer; every field is optional.
type DevnetPayment struct {
	Amount      *kassa.Millis // default: what the invoice still owes (all of it once nothing is owed)
	TokenID     *int64        // default: the invoice's locked token, else the first devnet stablecoin
	Pending     bool          // report it unconfirmed (default: confirmed)
	TxHash      string        // default: a fresh random hash; repeat one to confirm a pending payment
	FromAddress string        // default: DevnetPayer
}

func errDevnetOnly(msg string) error {
	return &kassa.Error{Kind: kassa.KindPermission, Code: "devnet_only", Message: msg}
}

// DevnetPay feeds a simulated transfer to one of the merchant's devnet invoices
// through the same ingestion path a transfer found on chain takes. The invoice's
// address must still be watched (kassa.WatchAfterExpiry), and its token's network
// must not be one Kassa watches: there a real transaction is needed (400
// network_watched).
func (s *Service) DevnetPay(ctx context.Context, merchantID int64, invoiceID string, req DevnetPayment) (*kassa.InvoicePayment, *kassa.Invoice, error) {
	inv, err := s.Invoices.Invoice(ctx, merchantID, invoiceID)
	if err != nil {
		return nil, nil, err
	}
	if inv.Environment != kassa.Devnet || s.Registry == nil || s.Rates == nil || s.Payments == nil {
		return nil, nil, errDevnetOnly("Simulated payments exist only for devnet invoices.")
	}
	if !s.now().Before(inv.ExpiresAt.Add(kassa.WatchAfterExpiry)) {
		return nil, nil, kassa.Errorf(kassa.KindConflict, "watch_ended",
			"This invoice expired more than 24 hours ago; its address is no longer watched.")
	}
	in, err := s.devnetInput(ctx, inv, req)
	if err != nil {
		return nil, nil, err
	}
	return s.Payments.IngestPayment(ctx, in)
}

// PayInvoice pays what an open devnet invoice still owes with a confirmed devnet
// payment, from wallet when it is an EVM address, and reports whether it paid: an
// invoice that is not open is left as it is. The commerce simulation pays an
// order's invoice through it.
func (s *Service) PayInvoice(ctx context.Context, merchantID int64, invoiceID string, wallet *string) (bool, error) {
	inv, err := s.Invoices.Invoice(ctx, merchantID, invoiceID)
	if err != nil {
		return false, err
	}
	if inv.Environment != kassa.Devnet {
		return false, errDevnetOnly("Simulated payments exist only for devnet invoices.")
	}
	if inv.Status != kassa.StatusUnpaid && inv.Status != kassa.StatusUnderpaid {
		return false, nil
	}
	if s.Registry == nil || s.Rates == nil || s.Payments == nil {
		return false, errDevnetOnly("Simulated payments are not configured.")
	}
	req := DevnetPayment{}
	if wallet != nil && kassa.CheckEVMAddress("walletAddress", *wallet) == nil {
		req.FromAddress = *wallet
	}
	in, err := s.devnetInput(ctx, inv, req)
	if err != nil {
		return false, err
	}
	_, _, err = s.Payments.IngestPayment(ctx, in)
	return err == nil, err
}

// devnetInput turns a devnet payment into the transfer it simulates, priced at
// the token's current rate.
func (s *Service) devnetInput(ctx context.Context, inv *kassa.Invoice, req DevnetPayment) (kassa.PaymentInput, error) {
	tok, err := s.devnetToken(inv, req.TokenID)
	if err != nil {
		return kassa.PaymentInput{}, err
	}
	if s.Watched(kassa.Devnet, tok.Network) {
		return kassa.PaymentInput{}, errNetworkWatched(tok.Network)
	}
	network, _ := s.Registry.Network(kassa.Devnet, tok.Network)
	amount := inv.AmountRemaining()
	if amount == 0 {
		amount = inv.Amount
	}
	if req.Amount != nil {
		amount = *req.Amount
	}
	rate, err := s.Rates.Rate(ctx, tok)
	if err != nil {
		return kassa.PaymentInput{}, err
	}
	hash := req.TxHash
	if hash == "" {
		hash = "0x" + strings.ReplaceAll(kassa.NewUUID()+kassa.NewUUID(), "-", "")
	}
	from := req.FromAddress
	if from == "" {
		from = DevnetPayer
	}
	confirmations := 0
	if !req.Pending {
		confirmations = network.Confirmations
	}
	return kassa.PaymentInput{MerchantID: inv.MerchantID, InvoiceID: inv.ID, Network: tok.Network, TxHash: hash,
		TokenID: tok.ID, FromAddress: from, AmountUnits: kassa.TokenUnits(amount, tok.Decimals, rate.USDPerToken),
		AmountUSD: amount, Confirmations: confirmations, Confirmed: !req.Pending}, nil
}

// devnetToken picks the token a devnet payment is made in.
func (s *Service) devnetToken(inv *kassa.Invoice, asked *int64) (kassa.Token, error) {
	id := int64(0)
	switch {
	case asked != nil:
		id = *asked
	case inv.LockedTokenID != nil:
		id = *inv.LockedTokenID
	}
	if id != 0 {
		if t, ok := s.Registry.Token(kassa.Devnet, id); ok {
			return t, nil
		}
		return kassa.Token{}, kassa.Invalidf("token_id", "invalid_token", "No devnet token has this id.")
	}
	for _, t := range s.Registry.Tokens(kassa.Devnet) {
		if t.Stable {
			return t, nil
		}
	}
	return kassa.Token{}, kassa.Invalidf("token_id", "invalid_token", "The devnet registry has no stablecoin; name a token_id.")
}
