package kassa

import (
	"context"
	"time"
)

// InvoiceStatus is where an invoice stands; see lifecycle.go for the rules.
type InvoiceStatus string

// Invoice statuses.
const (
	StatusUnpaid    InvoiceStatus = "unpaid"
	StatusUnderpaid InvoiceStatus = "underpaid"
	StatusPaid      InvoiceStatus = "paid"
	StatusExpired   InvoiceStatus = "expired"
	StatusCanceled  InvoiceStatus = "canceled"
)

// InvoiceStatuses lists every status, in lifecycle order.
var InvoiceStatuses = []InvoiceStatus{StatusUnpaid, StatusUnderpaid, StatusPaid, StatusExpired, StatusCanceled}

// Valid reports whether s is a known status.
func (s InvoiceStatus) Valid() bool {
	for _, v := range InvoiceStatuses {
		if s == v {
			return true
		}
	}
	return false
}

// InvoiceTypeStandard is the type of every invoice made through the invoice API.
const InvoiceTypeStandard = "standard"

// Invoice is a request for payment of a USD amount. Amounts are usd_millis.
type Invoice struct {
	ID            string
	MerchantID    int64
	Environment   Environment
	Status        InvoiceStatus
	Type          string
	Currency      string
	Amount        Millis
	AmountPaid    Millis // confirmed money, overpayment included
	AmountPending Millis // seen on chain, not yet confirmed
	// AmountRefunded is what the invoice's confirmed refunds paid back.
	AmountRefunded Millis

	Description             *string
	CustomerID              *string
	CustomerEmail           *string
	InvoiceTitle            string
	InvoiceFooter           string
	PaymentReturnURL        *string
	PaymentReturnURLEnabled bool
	ReceiverOverrideEnabled bool
	ReceiverOverrideAddress *string
	Questions               []Question // nil when the invoice asks nothing
	Metadata                []byte     // a JSON object, exactly as supplied

	PayerWalletAddress *string
	PayerWalletNetwork *string
	CommerceOrderID    *string
	// LockedTokenID is the token the payor chose (payment-address); while the
	// invoice is underpaid only it may pay the rest. Nil until a token is chosen.
	LockedTokenID *int64
	// FormResponses are the payor's answers to Questions; nil until submitted.
	FormResponses []FormResponse

	ExpiresAt     time.Time
	CreatedAt     time.Time
	PaidAt        *time.Time
	LastPaymentAt *time.Time
	CanceledAt    *time.Time
}

// AmountRemaining is what is still owed: never below zero, and zero once paid (a
// payment within the merchant's underpayment tolerance counts as full).
func (inv *Invoice) AmountRemaining() Millis {
	if inv.Status == StatusPaid || inv.AmountPaid >= inv.Amount {
		return 0
	}
	return inv.Amount - inv.AmountPaid
}

// PaymentUnderway reports whether money is part way: partly paid, or seen on
// chain and not yet confirmed. Ending the invoice's order then would strand it.
func (inv *Invoice) PaymentUnderway() bool {
	return inv.Status == StatusUnderpaid || inv.AmountPending > 0
}

// InvoiceFilter selects a page of a merchant's invoices, newest first.
type InvoiceFilter struct {
	MerchantID  int64
	Statuses    []InvoiceStatus
	Types       []string
	CustomerID  *string
	Environment *Environment
	CreatedGTE  *time.Time
	CreatedLTE  *time.Time
	// Query finds invoices by id, customer id, deposit address or a payment's
	// transaction hash (exactly), or a word of the description; "" finds all.
	Query string
	// NeedsAttention keeps invoices a person should look at: underpaid, or with
	// a payment set aside (manual_retry: late, wrong token, failed settlement).
	NeedsAttention bool
	StartingAfter  string // id: the page holds invoices older than it
	EndingBefore   string // id: the page holds invoices newer than it
	Limit          int
}

// InvoiceTotalsFilter selects the invoices that InvoiceTotals adds up.
type InvoiceTotalsFilter struct {
	MerchantID  int64
	Environment *Environment
	CustomerID  *string
	CreatedGTE  *time.Time
	CreatedLTE  *time.Time
}

// StatusTotal is a count and sums of invoices in one status.
type StatusTotal struct {
	Count      int64
	Amount     Millis
	AmountPaid Millis
}

// InvoiceTotals holds a StatusTotal for every status (zero when none).
type InvoiceTotals struct {
	ByStatus map[InvoiceStatus]StatusTotal
}

// InvoiceService creates and reads invoices. Every method is scoped to one merchant:
// another merchant's invoice is not found, never forbidden.
type InvoiceService interface {
	// CreateInvoice stores a new unpaid invoice with its defaults filled from the
	// merchant's settings, and its invoice.created event, in one transaction. It
	// returns the invoice and the payment session token, which is stored only hashed.
	CreateInvoice(ctx context.Context, p Principal, c InvoiceCreate, save *SavedResponse[CreatedInvoice]) (*Invoice, string, error)
	// Invoice returns one invoice with its status as of now (an invoice past its
	// expiry reads as expired at once).
	Invoice(ctx context.Context, merchantID int64, id string) (*Invoice, error)
	// Invoices returns a page of invoices and whether more exist in the paging
	// direction. A cursor id that is unknown to the merchant gives invalid_cursor.
	Invoices(ctx context.Context, f InvoiceFilter) ([]*Invoice, bool, error)
	// CancelInvoice cancels an unpaid invoice without payments; any other gives a
	// conflict (CheckCancel). An invoice of the other environment is refused
	// (environment_mismatch): a devnet key never changes mainnet money, nor the
	// reverse.
	CancelInvoice(ctx context.Context, p Principal, id string) (*Invoice, error)
	// InvoiceTotals counts and sums the merchant's invoices per status.
	InvoiceTotals(ctx context.Context, f InvoiceTotalsFilter) (*InvoiceTotals, error)
}
