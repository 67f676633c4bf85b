package commerce

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/kassapay/kassa"
)

// Upstream is a retailer reached over its HTTP API, the mainnet path. The wire
// format (JSON, `Authorization: Bearer <key>`, prices as decimal strings):
//
//	GET  /v1/search?q=&page=&limit=&min_price=&max_price= → {"products":[product], "total": n}
//	GET  /v1/products/{id}                                → product (404 when unknown)
//	POST /v1/prices {"ids":[...]}                         → {"prices":{"id":"12.99"}}
//	POST /v1/orders (Idempotency-Key: order id) order      → {"id": "..."}
//	POST /v1/orders/{id}/cancel                           → {}
//	GET  /v1/orders/{id}/tracking                         → {"shipments":[shipment]}
//
// product is {id, title, price, image, rating ("4.5"), review_count, fresh, url}.
// 404 is a missing product, other 4xx a refusal (400 retailer_rejected), 401/403
// a misconfigured key and 5xx, timeouts or malformed answers an unavailable
// retailer (503 retailer_unavailable). Reads are retried once.
type Upstream struct {
	name    string
	base    string
	key     string
	timeout time.Duration
	client  *http.Client
}

// UpstreamConfig configures an Upstream.
type UpstreamConfig struct {
	Name    string // one of Retailers
	BaseURL string
	APIKey  string
	Timeout time.Duration // per request; 0: 10 s
	Client  *http.Client  // nil: a default client
}

// maxUpstreamBody bounds what is read of an upstream answer.
const maxUpstreamBody = 4 << 20

// NewUpstream returns the HTTP adapter of one upstream retailer.
func NewUpstream(cfg UpstreamConfig) *Upstream {
	u := &Upstream{name: cfg.Name, base: cfg.BaseURL, key: cfg.APIKey, timeout: cfg.Timeout, client: cfg.Client}
	if u.timeout <= 0 {
		u.timeout = 10 * time.Second
	}
	if u.client == nil {
		u.client = &http.Client{}
	}
	return u
}

// Name is the retailer's name.
func (u *Upstream) Name() string { return u.name }

const pricesPath = "/v1/prices"

func unavailable(msg string) error {
	return &kassa.Error{Kind: kassa.KindUnavailable, Code: "retailer_unavailable", Message: msg}
}

// call sends one request and decodes a 2xx JSON answer into out. Reads (GETs
// and the price check, a POST only for its list of ids) are tried twice.
func (u *Upstream) call(ctx context.Context, method, path string, body any, idemKey string, out any) error {
	attempts := 1
	if method == http.MethodGet || path == pricesPath {
		attempts = 2
	}
	var err error
	for i := 0; i < attempts; i++ {
		var retry bool
		retry, err = u.once(ctx, method, path, body, idemKey, out)
		if err == nil || !retry || ctx.Err() != nil {
			break
		}
	}
	return err
}

func (u *Upstream) once(ctx context.Context, method, path string, body any, idemKey string, out any) (retry bool, err error) {
	ctx, cancel := context.WithTimeout(ctx, u.timeout)
	defer cancel()
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return false, err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, u.base+path, rd)
	if err != nil {
		return false, unavailable("The retailer's address is misconfigured.")
	}
	req.Header.Set("Authorization", "Bearer "+u.key)
	req.Header.Set("Accept", "application/json")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if idemKey != "" {
		req.Header.Set("Idempotency-Key", idemKey)
	}
	resp, err := u.client.Do(req)
	if err != nil {
		return true, unavailable("The retailer did not answer in time.")
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxUpstreamBody))
	if err != nil {
		return true, unavailable("The retailer's answer was cut off.")
	}
	switch {
	case resp.StatusCode == http.StatusNotFound:
		return false, &kassa.Error{Kind: kassa.KindNotFound, Code: "product_not_found", Message: "No such product at the retailer."}
	case resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden:
		return false, &kassa.Error{Kind: kassa.KindUnavailable, Code: "retailer_auth_failed",
			Message: "The retailer refused Kassa's credentials; the operator must fix the retailer key."}
	case resp.StatusCode >= 500 || resp.StatusCode == http.StatusTooManyRequests:
		return true, unavailable(fmt.Sprintf("The retailer is unavailable (HTTP %d).", resp.StatusCode))
	case resp.StatusCode >= 400:
		return false, kassa.Errorf(kassa.KindInvalid, "retailer_rejected", "The retailer refused the request (HTTP %d).", resp.StatusCode)
	}
	if out != nil && json.Unmarshal(data, out) != nil {
		return true, unavailable("The retailer's answer was malformed.")
	}
	return false, nil
}

type wireProduct struct {
	ID          string `json:"id"`
	Title       string `json:"title"`
	Price       string `json:"price"`
	Image       string `json:"image"`
	Rating      string `json:"rating"`
	ReviewCount int    `json:"review_count"`
	Fresh       bool   `json:"fresh"`
	URL         string `json:"url"`
}

func (u *Upstream) product(w wireProduct) (Product, error) {
	price, err := parseAmount(w.Price)
	if err != nil || w.ID == "" {
		return Product{}, unavailable("The retailer's answer was malformed.")
	}
	rating, _ := parseAmount(w.Rating)
	return Product{ID: w.ID, Title: w.Title, Price: price, Image: w.Image, Rating: Rating(rating / 100),
		ReviewCount: w.ReviewCount, Fresh: w.Fresh, Retailer: u.name, URL: w.URL}, nil
}

// parseAmount reads a price of the wire format, a decimal string.
func parseAmount(s string) (kassa.Millis, error) {
	m, ok := kassa.ParsePrice(s)
	if !ok {
		return 0, errors.New("commerce: not a decimal amount")
	}
	return m, nil
}

// Search asks the retailer for one page of matches.
func (u *Upstream) Search(ctx context.Context, q SearchQuery) (*SearchPage, error) {
	v := url.Values{"q": {q.Query}, "page": {strconv.Itoa(q.Page)}, "limit": {strconv.Itoa(q.Limit)}}
	if q.MinPrice != nil {
		v.Set("min_price", q.MinPrice.Number())
	}
	if q.MaxPrice != nil {
		v.Set("max_price", q.MaxPrice.Number())
	}
	var out struct {
		Products []wireProduct `json:"products"`
		Total    int           `json:"total"`
	}
	if err := u.call(ctx, http.MethodGet, "/v1/search?"+v.Encode(), nil, "", &out); err != nil {
		return nil, err
	}
	page := &SearchPage{Products: make([]Product, 0, len(out.Products)), TotalResults: out.Total}
	for _, w := range out.Products {
		p, err := u.product(w)
		if err != nil {
			return nil, err
		}
		page.Products = append(page.Products, p)
	}
	return page, nil
}

// Product looks one product up.
func (u *Upstream) Product(ctx context.Context, id string) (*Product, error) {
	var w wireProduct
	if err := u.call(ctx, http.MethodGet, "/v1/products/"+url.PathEscape(id), nil, "", &w); err != nil {
		return nil, err
	}
	p, err := u.product(w)
	return &p, err
}

// PriceCheck asks for the current prices of ids.
func (u *Upstream) PriceCheck(ctx context.Context, ids []string) (map[string]kassa.Millis, error) {
	var out struct {
		Prices map[string]string `json:"prices"`
	}
	if err := u.call(ctx, http.MethodPost, pricesPath, map[string]any{"ids": ids}, "", &out); err != nil {
		return nil, err
	}
	prices := make(map[string]kassa.Millis, len(out.Prices))
	for id, s := range out.Prices {
		m, err := parseAmount(s)
		if err != nil {
			return nil, unavailable("The retailer's answer was malformed.")
		}
		prices[id] = m
	}
	return prices, nil
}

// PlaceOrder orders the items; the order id is the Idempotency-Key, so a retry
// returns the first placement.
func (u *Upstream) PlaceOrder(ctx context.Context, o RetailerOrder) (*Placement, error) {
	items := make([]map[string]any, len(o.Items))
	for i, it := range o.Items {
		items[i] = map[string]any{"product_id": it.ProductID, "quantity": it.Quantity, "price": it.UnitPrice.Number()}
	}
	a := o.Address.Address
	body := map[string]any{"reference": o.OrderID, "items": items, "shipping": o.Shipping.ID, "address": map[string]string{
		"first_name": a.FirstName, "last_name": a.LastName, "line1": a.StreetAddress, "line2": a.AddressLine2,
		"city": a.City, "state": a.State, "zip": a.ZipCode, "country": a.Country, "phone": a.Phone, "email": a.Email}}
	var out struct {
		ID string `json:"id"`
	}
	if err := u.call(ctx, http.MethodPost, "/v1/orders", body, o.OrderID, &out); err != nil {
		return nil, err
	}
	if out.ID == "" {
		return nil, unavailable("The retailer's answer was malformed.")
	}
	return &Placement{RetailerOrderID: out.ID}, nil
}

// CancelOrder cancels a placed order.
func (u *Upstream) CancelOrder(ctx context.Context, id string) error {
	return u.call(ctx, http.MethodPost, "/v1/orders/"+url.PathEscape(id)+"/cancel", struct{}{}, "cancel-"+id, nil)
}

// Tracking returns the shipments of a placed order.
func (u *Upstream) Tracking(ctx context.Context, id string) ([]Shipment, error) {
	var out struct {
		Shipments []struct {
			ID             string `json:"id"`
			Carrier        string `json:"carrier"`
			TrackingNumber string `json:"tracking_number"`
			TrackingURL    string `json:"tracking_url"`
			Status         string `json:"status"`
		} `json:"shipments"`
	}
	if err := u.call(ctx, http.MethodGet, "/v1/orders/"+url.PathEscape(id)+"/tracking", nil, "", &out); err != nil {
		return nil, err
	}
	var ships []Shipment
	now := time.Now().UTC()
	for _, s := range out.Shipments {
		ships = append(ships, Shipment{ShipmentID: s.ID, Carrier: s.Carrier, TrackingNumber: s.TrackingNumber,
			CarrierTrackingURL: s.TrackingURL, DeliveryStatus: s.Status, RetailerTrackingNumber: id, ObtainedAt: now})
	}
	return ships, nil
}
