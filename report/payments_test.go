package report

import (
	"bytes"
	"context"
	"encoding/csv"
	"math/big"
	"strings"
	"testing"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/registry"
)

// oneInvoice is an InvoiceService with one page of invoices.
type oneInvoice struct {
	kassa.InvoiceService
	invs []*kassa.Invoice
}

func (o oneInvoice) Invoices(context.Context, kassa.InvoiceFilter) ([]*kassa.Invoice, bool, error) {
	return o.invs, false, nil
}

// somePayments is a PaymentService answering PaymentsOf from a map.
type somePayments struct {
	kassa.PaymentService
	by map[string][]*kassa.InvoicePayment
}

func (s somePayments) PaymentsOf(context.Context, int64, []string) (map[string][]*kassa.InvoicePayment, error) {
	return s.by, nil
}

// TestPaymentsTokenColumns: token_symbol and amount_token come from the
// registry, in the token's decimals; a token it does not list, or no registry,
// leaves both empty rather than a number off by a power of ten.
func TestPaymentsTokenColumns(t *testing.T) {
	inv := &kassa.Invoice{ID: "inv_1", Status: kassa.StatusPaid}
	pay := func(id string, token int64, units int64) *kassa.InvoicePayment {
		return &kassa.InvoicePayment{ID: id, InvoiceID: inv.ID, Environment: kassa.Devnet, TokenID: token, AmountUnits: big.NewInt(units)}
	}
	src := Source{Invoices: oneInvoice{invs: []*kassa.Invoice{inv}}, Payments: somePayments{by: map[string][]*kassa.InvoicePayment{
		inv.ID: {pay("pay_6dec", 7, 12_500_000), pay("pay_native", 9, 1), pay("pay_gone", 999, 42)}}}}
	for _, tc := range []struct {
		name string
		reg  kassa.Registry
		want [][2]string // per row: token_symbol, amount_token
	}{
		{"registry", registry.Default(), [][2]string{{"USDT", "12.5"}, {"ETH", "0.000000000000000001"}, {"", ""}}},
		{"no registry", nil, [][2]string{{"", ""}, {"", ""}, {"", ""}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src.Registry = tc.reg
			rows, err := csv.NewReader(strings.NewReader(runReport(t, src, "payments.csv"))).ReadAll()
			if err != nil || len(rows) != 1+len(tc.want) {
				t.Fatalf("rows %q, %v", rows, err)
			}
			n := 22 // token_symbol and amount_token end the columns of issue 37
			if rows[0][n-2] != "token_symbol" || rows[0][n-1] != "amount_token" {
				t.Fatalf("header %q", rows[0])
			}
			for i, w := range tc.want {
				if got := [2]string{rows[1+i][n-2], rows[1+i][n-1]}; got != w {
					t.Errorf("row %s: %q, want %q", rows[1+i][0], got, w)
				}
			}
		})
	}
}

// runReport runs the report name of src over every invoice and returns its CSV.
func runReport(t *testing.T, src Source, name string) string {
	t.Helper()
	rep, err := src.Run(context.Background(), name, Filter{})
	if err != nil {
		t.Fatal(err)
	}
	defer rep.Close()
	var buf bytes.Buffer
	if _, err := rep.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}
