package commerce_test

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/commerce"
	"github.com/kassapay/kassa/invoicing"
	"github.com/kassapay/kassa/store"
	"github.com/kassapay/kassa/store/storetest"
)

// mainnetOrder checks out one product on mainnet and moves the order to
// payment_settled as payment and settlement would.
func mainnetOrder(t *testing.T, svc *commerce.Shop, db *store.DB, p kassa.Principal) *commerce.Order {
	t.Helper()
	ctx := context.Background()
	e, err := svc.Estimate(ctx, p, commerce.EstimateRequest{Buyer: commerce.Buyer{CustomerID: "c1"},
		Items: []commerce.CartItem{{ProductID: "A1", Quantity: 1, Retailer: commerce.RetailerAmazon}}})
	if err != nil {
		t.Fatal(err)
	}
	a, err := svc.Address(ctx, p, commerce.CheckoutAddressRequest{CustomerID: "c1", EstimateID: e.ID, Address: commerce.ShippingAddressInput{
		FirstName: "Ada", LastName: "Lovelace", StreetAddress: "1 Main St", City: "Austin", State: "TX", ZipCode: "78701", Country: "US"}})
	if err != nil {
		t.Fatal(err)
	}
	refund := "0x52908400098527886E0F7030069857D2E4169EE7"
	c, err := svc.CreateOrder(ctx, p, commerce.OrderInvoiceRequest{CustomerID: "c1", EstimateID: e.ID, AddressID: a.ID, RefundAddress: &refund}, nil)
	if err != nil {
		t.Fatal(err)
	}
	o, err := db.ChangeOrder(ctx, p.MerchantID, c.Order.ID, func(o *commerce.Order, _ *kassa.Invoice, _ int, now time.Time) (commerce.InvoiceAction, error) {
		if err := o.Advance(commerce.Step{To: commerce.OrderPaymentConfirmed}, now); err != nil {
			return commerce.InvoiceKeep, err
		}
		return commerce.InvoiceKeep, o.Advance(commerce.Step{To: commerce.OrderPaymentSettled}, now)
	})
	if err != nil {
		t.Fatal(err)
	}
	return o
}

func TestPlacementWorker(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		db := storetest.Open(t, cfg)
		ctx := context.Background()
		m, err := db.CreateMerchant(ctx, kassa.MerchantCreate{Name: "commerce.Shop", Email: "p@example.com", Password: "correct horse", MainnetEnabled: true})
		if err != nil {
			t.Fatal(err)
		}
		f := commerce.NewFakeRetailer(t)
		cat := commerce.NewCatalog(commerce.CatalogConfig{Retailers: map[kassa.Environment][]commerce.Retailer{kassa.Mainnet: {commerce.NewTestUpstream(f, f.Key())}}})
		svc := &commerce.Shop{Catalog: cat, Store: db, Invoices: invoicing.Over(db)}
		p := kassa.Principal{MerchantID: m.ID, Environment: kassa.Mainnet, Scope: kassa.ScopeCommerce}
		log := slog.New(slog.NewTextHandler(io.Discard, nil))

		// Accepted: placed, with the retailer's order id.
		o := mainnetOrder(t, svc, db, p)
		if n, err := svc.PlaceOrders(ctx, log); err != nil || n != 1 {
			t.Fatalf("placed %d: %v", n, err)
		}
		got, _ := db.Order(ctx, m.ID, o.ID)
		if got.Status != commerce.OrderPlaced || got.RetailerOrderID == "" || got.Substatus != commerce.SubAwaitingTracking {
			t.Fatalf("after placement: %s %q", got.Status, got.RetailerOrderID)
		}

		// Unavailable: left for a later try (its lease holds it meanwhile).
		o = mainnetOrder(t, svc, db, p)
		f.SetFault("503", -1)
		if _, err := svc.PlaceOrders(ctx, log); err != nil {
			t.Fatal(err)
		}
		if got, _ = db.Order(ctx, m.ID, o.ID); got.Status != commerce.OrderPaymentSettled {
			t.Fatalf("after 503: %s", got.Status)
		}
		if n, _ := svc.PlaceOrders(ctx, log); n != 0 {
			t.Fatalf("leased order claimed again: %d", n)
		}

		// Refused: failed, and the refund is recorded by itself.
		f.SetFault("", 0)
		o = mainnetOrder(t, svc, db, p)
		f.SetFault("400", -1)
		if _, err := svc.PlaceOrders(ctx, log); err != nil {
			t.Fatal(err)
		}
		got, _ = db.Order(ctx, m.ID, o.ID)
		if got.Status != commerce.OrderFailed || got.Refund.Status != commerce.RefundPending ||
			got.Refund.Amount != got.Total-got.CommerceFee || got.Refund.Destination != "0x52908400098527886E0F7030069857D2E4169EE7" {
			t.Fatalf("after refusal: %s %+v", got.Status, got.Refund)
		}
	})
}
