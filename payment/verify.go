package payment

import (
	"context"

	"github.com/kassapay/kassa"
)

// VerifyRequest is one verify call (GET or POST /api/v1/invoice/{invoiceId}/verify)
// once its credential has been checked.
type VerifyRequest struct {
	// InvoiceID is the invoice the call names.
	InvoiceID string
	// Session is the invoice of the call's payment session; nil when a merchant
	// credential calls.
	Session *kassa.Invoice
	// MerchantID is the merchant credential's merchant, when Session is nil.
	MerchantID int64
	// Transfer names a transfer to look at now (POST); nil asks only how the
	// payments stand (GET). It is the surface's decoding of the body, called once
	// the invoice is known, so a call for an invoice its credential cannot open is
	// refused as not found whatever its body holds.
	Transfer func() (VerifyTransfer, error)
}

// VerifyTransfer is the transfer a verify POST names: {tx_hash, network}.
type VerifyTransfer struct {
	TxHash  string
	Network string
}

// Verification is verify's answer: how the invoice's payments stand, and whether
// Kassa looked on chain (Checked).
type Verification struct {
	Checked       bool   `json:"checked"`
	InvoiceID     string `json:"invoice_id"`
	Object        string `json:"object"` // "invoice_verification"
	PaymentStatus Status `json:"payment_status"`
}

// Verify answers a verify call. A payment session opens its own invoice only; a
// merchant credential any invoice of its merchant (404 otherwise). With a
// Transfer, the transfer must name a 32-byte hash (400 invalid_tx_hash) on a
// network of the invoice's environment (400 invalid_network); on a watched
// network it is looked up over RPC at once and any transfer in it to the
// invoice's deposit address is ingested as the watcher would (Checked), on any
// other it is only checked for form. Without one, Checked says whether the
// invoice's payments were all seen on chain (SeenOnChain). The payment status is
// read after the look-up, which may have paid the invoice.
func (s *Service) Verify(ctx context.Context, req VerifyRequest) (Verification, error) {
	inv, err := s.verifyInvoice(ctx, req)
	if err != nil {
		return Verification{}, err
	}
	var checked bool
	if req.Transfer != nil {
		if inv, checked, err = s.lookUp(ctx, inv, req.Transfer); err != nil {
			return Verification{}, err
		}
	} else if checked, err = s.SeenOnChain(ctx, inv); err != nil {
		return Verification{}, err
	}
	st, err := s.tracker().Status(ctx, inv)
	if err != nil {
		return Verification{}, err
	}
	return Verification{Object: "invoice_verification", InvoiceID: inv.ID, Checked: checked, PaymentStatus: st}, nil
}

// verifyInvoice is the invoice a verify call may see: its session's, when it
// names that one, or its merchant's of that id.
func (s *Service) verifyInvoice(ctx context.Context, req VerifyRequest) (*kassa.Invoice, error) {
	if req.Session != nil {
		if req.Session.ID != req.InvoiceID {
			return nil, kassa.NotFound("invoice") // a session opens its own invoice only
		}
		return req.Session, nil
	}
	if s.Invoices == nil {
		return nil, kassa.NotFound("invoice")
	}
	return s.Invoices.Invoice(ctx, req.MerchantID, req.InvoiceID)
}

// lookUp checks the transfer a verify POST names and, on a watched network,
// looks it up on chain now; it answers the invoice as it then stands and whether
// it looked.
func (s *Service) lookUp(ctx context.Context, inv *kassa.Invoice, decode func() (VerifyTransfer, error)) (*kassa.Invoice, bool, error) {
	tr, err := decode()
	if err != nil {
		return nil, false, err
	}
	if !kassa.ValidTxHash(tr.TxHash) {
		return nil, false, kassa.Invalidf("tx_hash", "invalid_tx_hash", "tx_hash must be 0x followed by 64 hex digits.")
	}
	if s.Registry == nil {
		return nil, false, kassa.Invalidf("network", "invalid_network", "No networks are configured.")
	}
	if _, ok := s.Registry.Network(inv.Environment, tr.Network); !ok {
		return nil, false, kassa.Invalidf("network", "invalid_network", "network must be a network of the invoice's environment.")
	}
	if !s.Watched(inv.Environment, tr.Network) {
		return inv, false, nil
	}
	if err := s.Chain.VerifyTransaction(ctx, inv, tr.Network, tr.TxHash); err != nil {
		return nil, false, err
	}
	if s.Invoices == nil {
		return inv, true, nil
	}
	fresh, err := s.Invoices.Invoice(ctx, inv.MerchantID, inv.ID) // the look-up may have paid it
	return fresh, true, err
}

// SeenOnChain reports whether every payment of inv was seen in a block; before
// any payment, whether its locked token's network is watched (so one would be).
func (s *Service) SeenOnChain(ctx context.Context, inv *kassa.Invoice) (bool, error) {
	rs, err := s.tracker().Receipts(ctx, inv)
	if err != nil {
		return false, err
	}
	if len(rs) == 0 {
		if inv.LockedTokenID == nil || s.Registry == nil {
			return false, nil
		}
		t, ok := s.Registry.Token(inv.Environment, *inv.LockedTokenID)
		return ok && s.Watched(inv.Environment, t.Network), nil
	}
	for _, p := range rs {
		if !p.OnChain() {
			return false, nil
		}
	}
	return true, nil
}

// tracker reads the service's invoices' payments.
func (s *Service) tracker() Tracker {
	return Tracker{Payments: s.Payments, Registry: s.Registry}
}
