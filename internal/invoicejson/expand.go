package invoicejson

// Expand names the optional parts of an invoice a client asked for.
type Expand struct {
	LatestPayment bool
	Payments      bool
	PaymentsLimit int
}
