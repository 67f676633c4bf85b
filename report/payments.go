package report

import (
	"context"
	"math/big"

	"github.com/kassapay/kassa"
)

// paymentHeader names the columns of payments.csv. New columns go at the end
// (before the metadata columns), so a parser reading columns by position keeps
// working.
var paymentHeader = []string{"payment_id", "invoice_id", "seen_at", "confirmed_at", "status", "environment", "network",
	"token_id", "tx_hash", "log_index", "from_address", "amount_token_units", "amount_usd", "confirmations",
	"settlement_status", "settlement_tx_hash", "invoice_status", "invoice_created_at", "invoice_amount_usd", "customer_id",
	"token_symbol", "amount_token", "type", "refund_id", "refund_address", "refund_reason"}

// paymentNumbers are the columns of payments.csv that hold numbers.
var paymentNumbers = map[string]bool{"token_id": true, "log_index": true, "amount_token_units": true, "amount_usd": true,
	"confirmations": true, "invoice_amount_usd": true, "amount_token": true}

// Row types of payments.csv.
const (
	rowPayment = "payment" // money in: a receipt
	rowRefund  = "refund"  // money out: a refund, its amounts negative
)

// payments runs payments.csv: one row per payment (receipt) and one per refund of
// the invoices of f, the invoices newest first and each one's rows oldest first
// (a payment when seen, a refund when created). An invoice without either has no
// row. Every refund has its row whatever its status, as every payment does; its
// amounts are negative (money going out), its time columns are when it was
// created and confirmed, its tx_hash its transfer's, and payment_id the payment
// it refunds ("" for the invoice's confirmed payments). token_symbol and
// amount_token (the amount as a decimal in the token, "2.5") come from the
// registry for a payment, empty for a token it does not know (its decimals are
// unknown), and from the refund itself for a refund.
func (s Source) payments(ctx context.Context, f Filter) (*Report, error) {
	rep, err := newReport(paymentHeader, paymentNumbers)
	if err != nil {
		return nil, err
	}
	err = s.each(ctx, f, func(page []*kassa.Invoice) error {
		byInvoice, err := s.Payments.PaymentsOf(ctx, f.MerchantID, ids(page))
		if err != nil {
			return err
		}
		refunds := map[string][]*kassa.Refund{}
		if s.Refunds != nil {
			if refunds, err = s.Refunds.RefundsOf(ctx, f.MerchantID, ids(page)); err != nil {
				return err
			}
		}
		for _, inv := range page {
			pays, refs := byInvoice[inv.ID], refunds[inv.ID]
			for len(pays) > 0 || len(refs) > 0 {
				var row []string
				if len(refs) == 0 || (len(pays) > 0 && !refs[0].CreatedAt.Before(pays[0].SeenAt)) {
					row, pays = s.paymentRow(inv, pays[0]), pays[1:]
				} else {
					row, refs = refundRow(inv, refs[0]), refs[1:]
				}
				if err := rep.add(row, inv.Metadata); err != nil {
					return err
				}
			}
		}
		return nil
	})
	return finish(rep, err)
}

// paymentRow is the row of receipt p of inv.
func (s Source) paymentRow(inv *kassa.Invoice, p *kassa.InvoicePayment) []string {
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
	return []string{p.ID, inv.ID, kassa.FormatTime(p.SeenAt), confirmed, string(p.Status), string(p.Environment),
		p.Network, itoa(p.TokenID), p.TxHash, itoa(p.LogIndex), p.FromAddress, units, p.AmountUSD.Decimal(),
		itoa(int64(p.Confirmations)), string(p.Settlement), settleTx, string(inv.Status),
		kassa.FormatTime(inv.CreatedAt), inv.Amount.Decimal(), str(inv.CustomerID), symbol, amount, rowPayment, "", "", ""}
}

// refundRow is the row of refund r of inv in payments.csv: amounts negative.
func refundRow(inv *kassa.Invoice, r *kassa.Refund) []string {
	out := new(big.Int).Neg(r.AmountUnits)
	return []string{r.PaymentID, inv.ID, kassa.FormatTime(r.CreatedAt), optTime(r.ConfirmedAt), string(r.Status),
		string(r.Environment), r.Network, itoa(r.TokenID), r.TxHash, "", "", out.String(), (-r.AmountUSD).Decimal(),
		"", "", "", string(inv.Status), kassa.FormatTime(inv.CreatedAt), inv.Amount.Decimal(), str(inv.CustomerID),
		r.TokenSymbol, kassa.FormatUnits(out, r.Decimals), rowRefund, r.ID, r.Address, r.Reason}
}

// token is p's token in the registry; false without a registry or when it does
// not know the token.
func (s Source) token(p *kassa.InvoicePayment) (kassa.Token, bool) {
	if s.Registry == nil {
		return kassa.Token{}, false
	}
	return s.Registry.Token(p.Environment, p.TokenID)
}
