package refund

import (
	"context"

	"github.com/kassapay/kassa"
)

// PayFromOwnWallet lets the merchant pay a pending refund from their own wallet:
// Kassa stops paying it (while its transfer is unsigned; 409 refund_being_sent
// after) and watches the chain for the merchant's transfer (kassa.OwnWalletPay).
// It is the dashboard's: the contract names no API route, and the transfer is a
// person's act with a wallet link and QR code.
func (s *Service) PayFromOwnWallet(ctx context.Context, p kassa.Principal, id string) (*kassa.Refund, error) {
	return s.Store.PayRefundFromOwnWallet(ctx, p.MerchantID, id, DecideOwnWallet(p))
}

// LetKassaPay hands a refund the merchant chose to pay back to Kassa while no
// transfer paying it was seen (409 refund_being_sent after).
func (s *Service) LetKassaPay(ctx context.Context, p kassa.Principal, id string) (*kassa.Refund, error) {
	return s.Store.LetKassaPayRefund(ctx, p.MerchantID, id, DecideLetKassaPay(p))
}
