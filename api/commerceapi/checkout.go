package commerceapi

import (
	"encoding/json"
	"net/http"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/api/httpx"
	"github.com/kassapay/kassa/commerce"
)

// Paths of the order endpoints, relative to the base address (docs/api.md 2.10).
const (
	pathCheckOrder   = "/api/commerce/merchant/orders/{orderId}"
	pathCheckPayment = "/api/commerce/merchant/payments/{orderId}/status"
	pathCancelOrder  = "/api/commerce/merchant/orders/{orderId}/cancel"
)

// usd renders usd_millis as a JSON number in USD, exactly ("19.99").
func usd(m kassa.Millis) json.Number { return json.Number(m.Number()) }

type estimateItemJSON struct {
	ProductID string      `json:"productId"`
	Title     string      `json:"title"`
	ImageURL  string      `json:"imageUrl"`
	Quantity  int         `json:"quantity"`
	UnitPrice json.Number `json:"unitPrice"`
	LineTotal json.Number `json:"lineTotal"`
	Retailer  string      `json:"retailer"`
	Fresh     bool        `json:"fresh"`
}

// CheckoutEstimate serves step 1: a priced cart, valid 30 minutes.
func (a *API) CheckoutEstimate(w http.ResponseWriter, r *http.Request) error {
	req, err := httpx.DecodeBody(r, decodeEstimate)
	if err != nil {
		return err
	}
	e, err := a.shop.Estimate(r.Context(), httpx.Principal(r.Context()), req)
	if err != nil {
		return err
	}
	items := make([]estimateItemJSON, len(e.Items))
	for i, it := range e.Items {
		items[i] = estimateItemJSON{it.ProductID, it.Title, it.ImageURL, it.Quantity, usd(it.UnitPrice),
			usd(it.LineTotal()), it.Retailer, it.Fresh}
	}
	commerceOK(w, http.StatusOK, map[string]any{
		"estimateId": e.ID, "retailer": e.Retailer, "items": items, "subtotal": usd(e.Subtotal),
		"shippingEstimate": usd(e.ShippingEstimate), "tax": usd(e.Tax), "commerceFee": usd(e.CommerceFee),
		"total": usd(e.Total), "currency": "usd", "expiresAt": kassa.FormatTime(e.ExpiresAt),
	})
	return nil
}

type addressJSON struct {
	FirstName     string `json:"first_name"`
	LastName      string `json:"last_name"`
	StreetAddress string `json:"street_address"`
	AddressLine2  string `json:"address_line2"`
	City          string `json:"city"`
	State         string `json:"state"`
	ZipCode       string `json:"zip_code"`
	Country       string `json:"country"`
	Phone         string `json:"phone"`
	Email         string `json:"email"`
}

type shippingOptionJSON struct {
	ID            string      `json:"id"`
	Name          string      `json:"name"`
	Price         json.Number `json:"price"`
	EstimatedDays string      `json:"estimatedDays"`
}

// CheckoutAddress serves step 2: the address validated and standardised, and the
// shipping options for the cart.
func (a *API) CheckoutAddress(w http.ResponseWriter, r *http.Request) error {
	req, err := httpx.DecodeBody(r, decodeCheckoutAddress)
	if err != nil {
		return err
	}
	addr, err := a.shop.Address(r.Context(), httpx.Principal(r.Context()), req)
	if err != nil {
		return err
	}
	in := addr.Address
	opts := make([]shippingOptionJSON, len(addr.Options))
	for i, o := range addr.Options {
		opts[i] = shippingOptionJSON{o.ID, o.Name, usd(o.Price), o.EstimatedDays}
	}
	commerceOK(w, http.StatusOK, map[string]any{
		"addressId": addr.ID, "validated": true,
		"standardized": addressJSON{in.FirstName, in.LastName, in.StreetAddress, in.AddressLine2, in.City,
			in.State, in.ZipCode, in.Country, in.Phone, in.Email},
		"shippingOptions": opts,
	})
	return nil
}

// orderCreatedJSON is the step 3 result (docs/api.md 2.10).
type orderCreatedJSON struct {
	OrderID               string               `json:"orderId"`
	InvoiceID             string               `json:"invoiceId"`
	InvoiceURL            string               `json:"invoiceUrl"`
	Session               string               `json:"session"`
	Signature             string               `json:"signature"`
	PaymentSessionHeaders kassa.SessionHeaders `json:"payment_session_headers"`
	MerchantID            int64                `json:"merchantId"`
	NetworkEnvironment    kassa.Environment    `json:"networkEnvironment"`
	CustomerID            *string              `json:"customerId"`
	Amount                json.Number          `json:"amount"`
	Status                commerce.OrderStatus `json:"status"`
	ExpiresAt             string               `json:"expiresAt"`
	Endpoints             map[string]string    `json:"endpoints"`
}

func (a *API) orderCreated(c commerce.CreatedOrder) map[string]any {
	sig := a.signer.Sign(c.SessionToken)
	var customer *string
	if c.Order.Buyer.CustomerID != "" {
		customer = &c.Order.Buyer.CustomerID
	}
	return map[string]any{"success": true, "data": orderCreatedJSON{
		OrderID: c.Order.ID, InvoiceID: c.Invoice.ID,
		InvoiceURL: a.signer.PaymentURL(a.publicURL, c.Invoice.ID, c.SessionToken),
		Session:    c.SessionToken, Signature: sig,
		PaymentSessionHeaders: kassa.SessionHeaders{SessionToken: c.SessionToken, Signature: sig},
		MerchantID:            c.Order.MerchantID, NetworkEnvironment: c.Order.Environment, CustomerID: customer,
		Amount: usd(c.Invoice.Amount), Status: c.Order.Status, ExpiresAt: kassa.FormatTime(c.Invoice.ExpiresAt),
		Endpoints: map[string]string{
			"checkOrder":   commercePath(pathCheckOrder, c.Order.ID),
			"checkPayment": commercePath(pathCheckPayment, c.Order.ID),
			"cancelOrder":  commercePath(pathCancelOrder, c.Order.ID),
		},
	}}
}

// CheckoutInvoice serves step 3: the invoice and the order, in one transaction.
// Behind the optional idempotency layer the store saves this response with them.
func (a *API) CheckoutInvoice(w http.ResponseWriter, r *http.Request, claim *httpx.Claim) error {
	req, err := httpx.DecodeBody(r, decodeOrderInvoice)
	if err != nil {
		return err
	}
	save := httpx.SaveResponse(claim, func(c commerce.CreatedOrder) (int, []byte, error) {
		b, err := httpx.Marshal(a.orderCreated(c))
		return http.StatusOK, b, err
	})
	c, err := a.shop.CreateOrder(r.Context(), httpx.Principal(r.Context()), req, save)
	if err != nil {
		return err
	}
	if httpx.WriteSaved(w, claim, save) {
		return nil
	}
	httpx.WriteJSON(w, http.StatusOK, a.orderCreated(*c))
	return nil
}

// CancelOrder serves POST .../orders/{orderId}/cancel (Idempotency-Key required).
func (a *API) CancelOrder(w http.ResponseWriter, r *http.Request) error {
	id, err := orderID(r)
	if err != nil {
		return err
	}
	req, err := decodeCancel(r)
	if err != nil {
		return err
	}
	o, err := a.shop.Cancel(r.Context(), httpx.Principal(r.Context()), id, req)
	if err != nil {
		return err
	}
	commerceOK(w, http.StatusOK, map[string]any{"order": o.JSON(a.now())})
	return nil
}

// SimulateOrder serves the devnet simulation (commerce.Shop.Simulate pays the
// order's invoice first when the path goes through payment_confirmed).
func (a *API) SimulateOrder(w http.ResponseWriter, r *http.Request) error {
	id, err := orderID(r)
	if err != nil {
		return err
	}
	req, err := httpx.DecodeBody(r, decodeSimulate)
	if err != nil {
		return err
	}
	p := httpx.Principal(r.Context())
	if p.Environment != kassa.Devnet {
		return httpx.ErrPermission("devnet_only", "Order simulation is available on devnet only.")
	}
	o, err := a.shop.Simulate(r.Context(), p, id, req)
	if err != nil {
		return err
	}
	commerceOK(w, http.StatusOK, map[string]any{"order": o.JSON(a.now())})
	return nil
}
