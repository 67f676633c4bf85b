package commerce

import (
	"time"

	"github.com/kassapay/kassa"
)

// The order follows its invoice and its settlement by itself: these are the
// changes the store applies when the invoice or a receipt changes, in the same
// transaction.

// orderPaymentStatus maps an invoice status to the order's payment status.
var orderPaymentStatus = map[kassa.InvoiceStatus]string{
	kassa.StatusUnpaid: OrderPaymentUnpaid, kassa.StatusUnderpaid: OrderPaymentUnderpaid, kassa.StatusPaid: OrderPaymentPaid,
	kassa.StatusExpired: OrderPaymentExpired, kassa.StatusCanceled: OrderPaymentCanceled,
}

// FollowInvoice brings an order waiting for payment in line with its invoice (its
// effective status): paid moves it to payment_confirmed, an expired or canceled
// invoice cancels it, partial money shows as an underpaid payment and money not yet
// confirmed on an unpaid invoice as a pending one. txHash is the
// transfer that made the change, if any. Orders past pending_payment keep their
// payment as it is: a paid invoice does not change again by itself.
func (o *Order) FollowInvoice(inv *kassa.Invoice, txHash string, now time.Time) {
	if o.Status != OrderPendingPayment {
		return
	}
	if inv.PayerWalletAddress != nil && o.WalletAddress == "" {
		o.WalletAddress = *inv.PayerWalletAddress
		if inv.PayerWalletNetwork != nil {
			o.WalletNetwork = *inv.PayerWalletNetwork
		}
	}
	var st Step
	switch inv.Status {
	case kassa.StatusPaid:
		st = Step{To: OrderPaymentConfirmed, TxHash: txHash}
	case kassa.StatusExpired:
		st = Step{To: OrderCancelled, Substatus: SubPaymentExpired, Message: "The invoice expired before it was paid."}
	case kassa.StatusCanceled:
		st = Step{To: OrderCancelled, Substatus: SubPaymentCanceled, Message: "The invoice was canceled."}
	default:
		s := orderPaymentStatus[inv.Status]
		if inv.Status == kassa.StatusUnpaid && inv.AmountPending > 0 {
			s = OrderPaymentPending
		}
		if s != o.Payment.Status {
			o.Payment.Status, o.UpdatedAt = s, now
		}
		if txHash != "" && o.Payment.TxHash != txHash {
			o.Payment.TxHash, o.UpdatedAt = txHash, now
		}
		return
	}
	if inv.Status != kassa.StatusPaid {
		o.Payment.Status = orderPaymentStatus[inv.Status]
	}
	_ = o.Advance(st, now) // every step above is allowed from pending_payment
	if inv.Status == kassa.StatusExpired && inv.AmountPaid > 0 {
		// Part of the money came before the invoice expired: it goes back whole
		// (nothing was bought, so no commerce fee), and refunded can follow.
		o.Refund = o.RefundQuote(now)
		o.Refund.Status, o.Refund.Amount, o.Refund.Fee = RefundPending, inv.AmountPaid, 0
	}
}

// FollowSettlement records a settled, failed or manual settlement of the order's
// money; when all of it is settled, a confirmed order moves to payment_settled.
func (o *Order) FollowSettlement(status kassa.SettlementStatus, txHash, network string, allSettled bool, now time.Time) {
	if o.Payment.SettlementStatus == string(status) && o.Payment.SettlementTxHash == txHash &&
		!(allSettled && o.Status == OrderPaymentConfirmed) {
		return
	}
	o.Payment.SettlementStatus, o.Payment.SettlementTxHash, o.Payment.SettlementNetwork = string(status), txHash, network
	o.UpdatedAt = now
	if allSettled && o.Status == OrderPaymentConfirmed {
		_ = o.Advance(Step{To: OrderPaymentSettled}, now)
		o.Payment.SettlementStatus = string(status)
	}
}
