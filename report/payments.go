package report

import (
	"context"
	"io"

	"kassa"
)

// paymentHeader names the columns of payments.csv. New columns go at the end
// (before the metadata columns), so a parser reading columns by position keeps
// working.
var paymentHeader = []string{"payment_id", "invoice_id", "seen_at", "confirmed_at", "status", "environment", "network",
	"token_id", "tx_hash", "log_index", "from_address", "amount_token_units", "amount_usd", "confirmations",
	"settlement_status", "settlement_tx_hash", "invoice_status", "invoice_created_at", "invoice_amount_usd", "customer_id",
	"token_symbol", "amount_token"}

// WritePayments writes payments.csv: one row per payment (receipt) of the invoices of
// f, the invoices newest first and each one's payments oldest first. An invoice
// without a payment has no row. token_symbol and amount_token (the amount as a
// decimal in the token, "2.5") come from the registry; both are empty for a token
// it does not know (its decimals are unknown).
func (s Source) WritePayments(ctx context.Context, f Filter, w io.Writer) error {
	t := &table{header: paymentHeader}
	err := s.each(ctx, f, func(page []*kassa.Invoice) error {
		ids := make([]string, len(page))
		for i, inv := range page {
			ids[i] = inv.ID
		}
		byInvoice, err := s.Payments.PaymentsOf(ctx, f.MerchantID, ids)
		if err != nil {
			return err
		}
		for _, inv := range page {
			for _, p := range byInvoice[inv.ID] {
				confirmed, settleTx := "", ""
				if p.ConfirmedAt != nil {
					confirmed = kassa.FormatTime(*p.ConfirmedAt)
				}
				if p.SettlementTxHash != nil {
					settleTx = *p.SettlementTxHash
				}
				units, symbol, amount := "", "", ""
				if p.AmountUnits != nil {
					units = p.AmountUnits.String()
				}
				if tok, ok := s.token(p); ok {
					symbol = tok.Symbol
					if p.AmountUnits != nil {
						amount = kassa.FormatUnits(p.AmountUnits, tok.Decimals)
					}
				}
				t.add([]string{p.ID, inv.ID, kassa.FormatTime(p.SeenAt), confirmed, string(p.Status), string(p.Environment),
					p.Network, itoa(p.TokenID), p.TxHash, itoa(p.LogIndex), p.FromAddress, units, p.AmountUSD.Decimal(),
					itoa(int64(p.Confirmations)), string(p.Settlement), settleTx, string(inv.Status),
					kassa.FormatTime(inv.CreatedAt), inv.Amount.Decimal(), str(inv.CustomerID), symbol, amount}, inv.Metadata)
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	return t.write(w)
}

// token is p's token in the registry; false without a registry or when it does
// not know the token.
func (s Source) token(p *kassa.InvoicePayment) (kassa.Token, bool) {
	if s.Registry == nil {
		return kassa.Token{}, false
	}
	return s.Registry.Token(p.Environment, p.TokenID)
}
