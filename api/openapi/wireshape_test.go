package openapi_test

import (
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/api/openapi"
	"github.com/kassapay/kassa/api/openapi/openapitest"
	"github.com/kassapay/kassa/internal/invoicejson"
)

// TestWireTypesMatchDocument encodes each of the domain's wire shapes with every
// optional part filled in and compares it with its schema in the document: a
// member in one and not the other, or of a JSON type the document does not allow,
// is named. Adding a field to the API means adding it to the encoder and the
// document; this test fails until both have it. (merchantapi's
// TestInvoiceAnswersMatchDocument does the same for the list and create answers.)
func TestWireTypesMatchDocument(t *testing.T) {
	for _, tt := range wireSamples(t) {
		t.Run(tt.schema, func(t *testing.T) {
			diffs, err := openapitest.Shape(openapi.Document, tt.schema, tt.json, tt.absent...)
			if err != nil {
				t.Fatal(err)
			}
			if len(diffs) > 0 {
				t.Errorf("%s and its Go encoder differ:\n%s", tt.schema, strings.Join(diffs, "\n"))
			}
		})
	}
}

type wireSample struct {
	schema string
	json   []byte
	absent []string // members the document has that this value never carries
}

func ptr[T any](v T) *T { return &v }

const goodAddress = "0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359"

func wireSamples(t *testing.T) []wireSample {
	t.Helper()
	enc := func(v any) []byte {
		t.Helper()
		b, err := kassa.MarshalJSON(v)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	created := time.Date(2026, 11, 1, 10, 0, 0, 0, time.UTC)
	at := created.Add(time.Hour)
	inv := &kassa.Invoice{ID: "123e4567-e89b-42d3-a456-426614174000", MerchantID: 7, Environment: kassa.Devnet,
		Status: kassa.StatusPaid, Type: kassa.InvoiceTypeStandard, Currency: "usd", Amount: 12345, AmountPaid: 12345,
		AmountPending: 5, AmountRefunded: 100, InvoiceTitle: "Shop", InvoiceFooter: "Shop",
		ExpiresAt: at, CreatedAt: created, CustomerID: ptr("cus_9"), CustomerEmail: ptr("p@x.io"), Description: ptr("Order"),
		PayerWalletAddress: ptr(goodAddress), PayerWalletNetwork: ptr("bsc"), CommerceOrderID: ptr("ord_1"),
		PaidAt: &at, LastPaymentAt: &at, CanceledAt: &at, PaymentReturnURL: ptr("https://shop.example/r"),
		PaymentReturnURLEnabled: true, ReceiverOverrideEnabled: true, ReceiverOverrideAddress: ptr(goodAddress),
		Questions:     []kassa.Question{{ID: "q1", Question: "Email?", Type: "email", Validation: kassa.QuestionValidation{Required: true}}},
		FormResponses: []kassa.FormResponse{{QuestionID: "q1", Response: "a@b.c"}}, LockedTokenID: ptr(int64(3)),
		Metadata: []byte(`{"order":"1"}`)}
	rec := &kassa.Payment{ID: "0190a0b0-0000-7000-8000-000000000001", InvoiceID: inv.ID, Network: "bsc",
		TxHash: "0xab", LogIndex: 1, TokenID: 3, FromAddress: goodAddress, AmountUnits: big.NewInt(12345678),
		AmountUSD: 12340, Status: "manual_retry", Confirmations: 12, SeenAt: created, ConfirmedAt: &at,
		Settlement: "settled", SettlementTxHash: ptr("0xcd"), BlockNumber: 7, BlockHash: "0xef",
		AttentionReason: "wrong_token", Resolution: "accepted", ResolvedAt: &at, ResolutionNote: "ok"}
	refund := &kassa.Refund{ID: "0190a0b0-0000-7000-8000-000000000002", InvoiceID: inv.ID, PaymentID: rec.ID,
		Status: "sent", AmountUSD: 1000, Rate: kassa.RefundRatePaid, Network: "bsc", TokenID: 3, TokenSymbol: "USDT",
		Decimals: 6, AmountUnits: big.NewInt(1000000), Address: goodAddress, ClaimURL: "https://x/refund/1?t=2",
		ClaimExpires: at, TxHash: "0xab", Reason: "r", FailureReason: "f", CreatedAt: created, SentAt: &at, ConfirmedAt: &at,
		OwnWallet: &kassa.OwnWalletPay{}}
	endpoint := &kassa.WebhookEndpoint{ID: "we_1", URL: "https://x/hook", Description: "d", EnabledEvents: []string{"*"},
		Status: "disabled", DisabledReason: ptr("failing"), Environment: kassa.Devnet, Secret: "whsec_1", CreatedAt: created, UpdatedAt: at}
	delivery := kassa.WebhookDelivery{ID: "whd_1", EndpointID: "we_1", EventID: "evt_1", EventType: kassa.EventInvoicePaid,
		Status: "pending", Attempts: 1, NextAttemptAt: &at, CreatedAt: created, UpdatedAt: at,
		Log: []kassa.WebhookAttempt{{Attempt: 1, At: created, StatusCode: 500, LatencyMS: 3, ResponseExcerpt: "x", Error: "e"}}}
	data, err := invoicejson.EventData(inv)
	if err != nil {
		t.Fatal(err)
	}
	ev := kassa.NewEvent(inv.MerchantID, inv.Environment, kassa.EventInvoicePaid, data, created)
	expanded := invoicejson.Expanded{Invoice: inv, Expand: invoicejson.Expand{LatestPayment: true, Payments: true},
		Receipts: []*kassa.Payment{rec}}
	return []wireSample{
		{"Invoice", enc(expanded), nil},
		{"PayorInvoice", enc(invoicejson.Payor{Invoice: inv, LockedNetwork: ptr("bsc")}), nil},
		{"InvoicePayment", enc(rec), nil},
		{"Refund", enc(refund), nil},
		{"PayorRefund", enc(refund.PayorView()), nil},
		{"WebhookEndpoint", enc(endpoint), nil},
		{"WebhookEndpointWithSecret", enc(endpoint.WithSecret()), nil},
		{"WebhookDelivery", enc(delivery), nil},
		// An event's invoice has no expansions.
		{"InvoiceEvent", enc(ev), []string{"data.object.latest_payment", "data.object.payments"}},
	}
}
