package merchantapi

import (
	"bytes"
	"context"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/api/httpx"
	"github.com/kassapay/kassa/api/openapi"
	"github.com/kassapay/kassa/api/openapi/openapitest"
	"github.com/kassapay/kassa/internal/invoicejson"
	"github.com/kassapay/kassa/payment"
)

func testInvoice(id, desc string, meta string) *kassa.Invoice {
	at := time.Date(2026, 11, 1, 10, 0, 0, 123_456_789, time.UTC)
	return &kassa.Invoice{ID: id, MerchantID: 1, Environment: kassa.Devnet, Status: kassa.StatusUnpaid,
		Type: kassa.InvoiceTypeStandard, Currency: "usd", Amount: 12500, Description: &desc,
		InvoiceTitle: "Shop <&>", InvoiceFooter: "Shop", Metadata: []byte(meta), ExpiresAt: at.Add(time.Hour), CreatedAt: at}
}

// The hand-built list envelope is what encoding/json makes of the same list.
func TestInvoiceListBytes(t *testing.T) {
	invs := []*kassa.Invoice{testInvoice("a", "x\u2028y", `{"k": [1, 2]}`), testInvoice("b", "<b>", "")}
	tests := []struct {
		name   string
		invs   []*kassa.Invoice
		expand invoicejson.Expand
		more   bool
		url    string
	}{
		{"empty", []*kassa.Invoice{}, invoicejson.Expand{}, false, "/api/v1/invoices"},
		{"two", invs, invoicejson.Expand{}, true, "/api/v1/invoices"},
		{"expanded", invs, invoicejson.Expand{LatestPayment: true, Payments: true}, false, "/api/v1/invoices/customer/<c&\u2029\xff>"},
	}
	a := &API{}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := make([]invoicejson.Expanded, len(tt.invs))
			for i, inv := range tt.invs {
				data[i] = invoicejson.Expanded{Invoice: inv, Expand: tt.expand}
			}
			want, err := httpx.Marshal(struct {
				Object  string                 `json:"object"`
				Data    []invoicejson.Expanded `json:"data"`
				HasMore bool                   `json:"has_more"`
				URL     string                 `json:"url"`
			}{"list", data, tt.more, tt.url})
			if err != nil {
				t.Fatal(err)
			}
			got, err := a.appendInvoiceList(context.Background(), []byte("junk")[:0], tt.invs, tt.expand, tt.more, tt.url)
			if err != nil || !bytes.Equal(got, want) {
				t.Fatalf("list = %s, %v\nwant %s", got, err, want)
			}
			w := httptest.NewRecorder()
			if err := a.writeList(context.Background(), w, tt.invs, tt.expand, tt.more, tt.url); err != nil ||
				!bytes.Equal(w.Body.Bytes(), want) || w.Code != 200 || w.Header().Get("Content-Type") != "application/json" {
				t.Fatalf("written %d %v: %s, %v", w.Code, w.Header(), w.Body.Bytes(), err)
			}
		})
	}
	if _, err := a.appendInvoiceList(context.Background(), nil, []*kassa.Invoice{testInvoice("c", "", "{")}, invoicejson.Expand{}, false, "/"); err == nil {
		t.Error("a list of an invoice with broken metadata rendered")
	}
}

// createdRef is the create answer with its invoice as encoding/json renders the
// canonical object.
type createdRef struct {
	invoiceCreated
	Invoice *invoicejson.Expanded `json:"invoice"`
}

// The hand-built create answer and single-invoice answers are what httpx made.
func TestInvoiceAnswerBytes(t *testing.T) {
	for _, inv := range []*kassa.Invoice{nil, testInvoice("d", "é\x01", `{ }`)} {
		c := invoiceCreated{InvoiceID: "d", PaymentURL: "http://h/pay/d?t=1&s=<2>", ExpiresAt: "2026-11-01T11:00:00.123Z",
			SessionToken: "ps_x", Signature: "sig\u2028", PaymentSessionHeaders: payment.SessionHeaders{SessionToken: "ps_x", Signature: "sig\u2028"},
			Invoice: inv}
		ref := createdRef{invoiceCreated: c}
		if inv != nil {
			ref.Invoice = &invoicejson.Expanded{Invoice: inv}
		}
		want, err := httpx.Marshal(ref)
		if err != nil {
			t.Fatal(err)
		}
		if got, err := marshalInvoiceCreated(c); err != nil || !bytes.Equal(got, want) {
			t.Fatalf("created = %s, %v\nwant %s", got, err, want)
		}
		if inv == nil {
			continue
		}
		for _, x := range []invoicejson.Expanded{{Invoice: inv}, {Invoice: inv, Expand: invoicejson.Expand{LatestPayment: true}}} {
			w := httptest.NewRecorder()
			writeInvoice(w, 200, x)
			ref := httptest.NewRecorder()
			httpx.WriteJSON(ref, 200, x)
			if !bytes.Equal(w.Body.Bytes(), ref.Body.Bytes()) || w.Code != ref.Code {
				t.Fatalf("invoice = %d %s\nwant %d %s", w.Code, w.Body.Bytes(), ref.Code, ref.Body.Bytes())
			}
		}
	}
}

// The list and create answers have the members of the document's InvoiceList and
// InvoiceCreated (openapi's TestWireTypesMatchDocument checks the invoice itself).
func TestInvoiceAnswersMatchDocument(t *testing.T) {
	inv := testInvoice("123e4567-e89b-42d3-a456-426614174000", "d", `{"a":1}`)
	list, err := (&API{}).appendInvoiceList(context.Background(), nil, []*kassa.Invoice{inv}, invoicejson.Expand{}, true, "/api/v1/invoices")
	if err != nil {
		t.Fatal(err)
	}
	created, err := marshalInvoiceCreated(invoiceCreated{InvoiceID: inv.ID, PaymentURL: "http://h/pay/d?t=1",
		ExpiresAt: "2026-11-01T11:00:00.123Z", SessionToken: "ps_x", Signature: "sig",
		PaymentSessionHeaders: payment.SessionHeaders{SessionToken: "ps_x", Signature: "sig"}, Invoice: inv})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		schema string
		json   []byte
		absent []string
	}{
		{"InvoiceList", list, []string{"data[].latest_payment", "data[].payments"}},
		{"InvoiceCreated", created, []string{"invoice.latest_payment", "invoice.payments"}},
	} {
		diffs, err := openapitest.Shape(openapi.Document, tt.schema, tt.json, tt.absent...)
		if err != nil {
			t.Fatal(err)
		}
		if len(diffs) > 0 {
			t.Errorf("%s and its encoder differ:\n%s", tt.schema, strings.Join(diffs, "\n"))
		}
	}
}
