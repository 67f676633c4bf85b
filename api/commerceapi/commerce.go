package commerceapi

import (
	"net/http"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/api/httpx"
	"github.com/kassapay/kassa/commerce"
)

// Config holds what the commerce API uses.
type Config struct {
	Shop      commerce.Service     // search, checkout and orders
	Catalog   commerce.Catalog     // retailers per environment, for Status
	Invoices  kassa.InvoiceService // the invoices behind orders, for OrderPaymentStatus
	Signer    kassa.SessionSigner  // signs the payment session of a new order
	PublicURL string               // base of an order's invoiceUrl
	Now       func() time.Time     // nil: time.Now
}

// API serves the commerce routes; its handlers are httpx.Func values for the
// route table, each behind httpx.Core.Commerce.
type API struct {
	shop      commerce.Service
	catalog   commerce.Catalog
	invoices  kassa.InvoiceService
	signer    kassa.SessionSigner
	publicURL string
	now       func() time.Time
}

// New returns the commerce API over cfg.
func New(cfg Config) *API {
	a := &API{shop: cfg.Shop, catalog: cfg.Catalog, invoices: cfg.Invoices, signer: cfg.Signer,
		publicURL: cfg.PublicURL, now: cfg.Now}
	if a.now == nil {
		a.now = time.Now
	}
	return a
}

// commerceOK writes the success envelope.
func commerceOK(w http.ResponseWriter, status int, data any) {
	httpx.WriteJSON(w, status, map[string]any{"success": true, "data": data})
}

// Status serves GET /api/commerce/status: whether commerce is enabled for
// the key, and what it can use.
func (a *API) Status(w http.ResponseWriter, r *http.Request) error {
	p := httpx.Principal(r.Context())
	retailers := []map[string]any{}
	for _, name := range commerce.Retailers {
		_, err := a.catalog.Retailer(p.Environment, name)
		retailers = append(retailers, map[string]any{"id": name, "supported": err == nil,
			"default": name == commerce.DefaultRetailer})
	}
	commerceOK(w, http.StatusOK, map[string]any{
		"enabled": true, "merchantId": p.MerchantID, "networkEnvironment": p.Environment,
		"scope": p.Scope, "retailers": retailers, "simulation": p.Environment == kassa.Devnet,
	})
	return nil
}

// orderID reads and checks the {orderId} path value.
func orderID(r *http.Request) (string, error) {
	id := r.PathValue("orderId")
	if !kassa.ValidUUID(id) {
		return "", httpx.ErrInvalid("orderId", "invalid_order_id", "orderId must be a UUID.")
	}
	return id, nil
}

// Order serves GET /api/commerce/merchant/orders/{orderId}.
func (a *API) Order(w http.ResponseWriter, r *http.Request) error {
	id, err := orderID(r)
	if err != nil {
		return err
	}
	o, err := a.shop.Order(r.Context(), httpx.Principal(r.Context()), id)
	if err != nil {
		return err
	}
	commerceOK(w, http.StatusOK, map[string]any{"order": o.JSON(a.now())})
	return nil
}

// Orders serves GET /api/commerce/merchant/orders?customer_id=|wallet_address=
// (customerId, walletAddress and wallet too) with limit and cursors, newest first.
func (a *API) Orders(w http.ResponseWriter, r *http.Request) error {
	p := httpx.Principal(r.Context())
	q := r.URL.Query()
	f := commerce.OrderFilter{MerchantID: p.MerchantID, Environment: p.Environment}
	var err error
	if f.Limit, err = httpx.LimitParam(q, "limit"); err != nil {
		return err
	}
	for _, v := range []struct {
		name    string
		aliases []string // the camelCase the commerce API's bodies use, and wallet
		dst     **string
	}{{"customer_id", []string{"customerId"}, &f.CustomerID},
		{"wallet_address", []string{"walletAddress", "wallet"}, &f.WalletAddress},
		{"starting_after", nil, &f.StartingAfter}, {"ending_before", nil, &f.EndingBefore}} {
		name, val := v.name, httpx.QueryValue(q, v.name)
		for _, a := range v.aliases {
			if val == "" {
				name, val = a, httpx.QueryValue(q, a)
			}
		}
		if val != "" {
			if len(val) > 255 || !utf8.ValidString(val) {
				return httpx.ErrInvalid(name, "invalid_"+v.name, name+" must be at most 255 characters of text.")
			}
			if v.dst == &f.WalletAddress {
				if err := kassa.CheckEVMAddress(name, val); err != nil {
					return err
				}
			}
			*v.dst = &val
		}
	}
	orders, more, err := a.shop.Orders(r.Context(), f)
	if err != nil {
		return err
	}
	now := a.now()
	out := make([]commerce.OrderJSON, len(orders))
	for i, o := range orders {
		out[i] = o.JSON(now)
	}
	commerceOK(w, http.StatusOK, httpx.ListOf(out, more))
	return nil
}

// OrderPaymentStatus serves GET /api/commerce/merchant/payments/{orderId}/status:
// the order's payment, with its invoice's amounts.
func (a *API) OrderPaymentStatus(w http.ResponseWriter, r *http.Request) error {
	id, err := orderID(r)
	if err != nil {
		return err
	}
	p := httpx.Principal(r.Context())
	o, err := a.shop.Order(r.Context(), p, id)
	if err != nil {
		return err
	}
	inv, err := a.invoices.Invoice(r.Context(), p.MerchantID, o.InvoiceID)
	if err != nil {
		return err
	}
	j := o.JSON(a.now())
	commerceOK(w, http.StatusOK, map[string]any{
		"orderId": o.ID, "invoiceId": inv.ID, "orderStatus": o.Status, "invoiceStatus": inv.Status,
		"payment": j.Payment, "amountUsd": inv.Amount.Cents(), "amountPaidUsd": inv.AmountPaid.Cents(),
		"amountRemainingUsd": inv.AmountRemaining().Cents(), "amountPendingUsd": inv.AmountPending.Cents(),
		"expiresAt": kassa.FormatTime(inv.ExpiresAt), "paidAt": kassa.FormatOptTime(inv.PaidAt),
	})
	return nil
}

// commercePath is the relative path of a commerce endpoint for an order.
func commercePath(format, id string) string {
	return strings.Replace(format, "{orderId}", url.PathEscape(id), 1)
}
