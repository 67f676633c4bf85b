package api

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"

	"kassa"
)

// Paths of the order endpoints, relative to the base address (interface 2.10).
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

// checkoutEstimate serves step 1: a priced cart, valid 30 minutes.
func (s *server) checkoutEstimate(w http.ResponseWriter, r *http.Request) error {
	body, err := readBody(r)
	if err != nil {
		return err
	}
	req, err := decodeEstimate(body)
	if err != nil {
		return err
	}
	e, err := s.cfg.Commerce.Estimate(r.Context(), principal(r.Context()), req)
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

// checkoutAddress serves step 2: the address validated and standardised, and the
// shipping options for the cart.
func (s *server) checkoutAddress(w http.ResponseWriter, r *http.Request) error {
	body, err := readBody(r)
	if err != nil {
		return err
	}
	req, err := decodeCheckoutAddress(body)
	if err != nil {
		return err
	}
	a, err := s.cfg.Commerce.Address(r.Context(), principal(r.Context()), req)
	if err != nil {
		return err
	}
	in := a.Address
	opts := make([]shippingOptionJSON, len(a.Options))
	for i, o := range a.Options {
		opts[i] = shippingOptionJSON{o.ID, o.Name, usd(o.Price), o.EstimatedDays}
	}
	commerceOK(w, http.StatusOK, map[string]any{
		"addressId": a.ID, "validated": true,
		"standardized": addressJSON{in.FirstName, in.LastName, in.StreetAddress, in.AddressLine2, in.City,
			in.State, in.ZipCode, in.Country, in.Phone, in.Email},
		"shippingOptions": opts,
	})
	return nil
}

// orderCreatedJSON is the step 3 result (interface 2.10).
type orderCreatedJSON struct {
	OrderID               string            `json:"orderId"`
	InvoiceID             string            `json:"invoiceId"`
	InvoiceURL            string            `json:"invoiceUrl"`
	Session               string            `json:"session"`
	Signature             string            `json:"signature"`
	PaymentSessionHeaders sessionHeaders    `json:"payment_session_headers"`
	MerchantID            int64             `json:"merchantId"`
	NetworkEnvironment    kassa.Environment `json:"networkEnvironment"`
	CustomerID            *string           `json:"customerId"`
	Amount                json.Number       `json:"amount"`
	Status                kassa.OrderStatus `json:"status"`
	ExpiresAt             string            `json:"expiresAt"`
	Endpoints             map[string]string `json:"endpoints"`
}

func (s *server) orderCreated(c kassa.CreatedOrder) map[string]any {
	sig := s.signer.Sign(c.SessionToken)
	var customer *string
	if c.Order.Buyer.CustomerID != "" {
		customer = &c.Order.Buyer.CustomerID
	}
	return map[string]any{"success": true, "data": orderCreatedJSON{
		OrderID: c.Order.ID, InvoiceID: c.Invoice.ID,
		InvoiceURL: s.signer.PaymentURL(s.cfg.PublicURL, c.Invoice.ID, c.SessionToken),
		Session:    c.SessionToken, Signature: sig,
		PaymentSessionHeaders: sessionHeaders{SessionToken: c.SessionToken, Signature: sig},
		MerchantID:            c.Order.MerchantID, NetworkEnvironment: c.Order.Environment, CustomerID: customer,
		Amount: usd(c.Invoice.Amount), Status: c.Order.Status, ExpiresAt: kassa.FormatTime(c.Invoice.ExpiresAt),
		Endpoints: map[string]string{
			"checkOrder":   commercePath(pathCheckOrder, c.Order.ID),
			"checkPayment": commercePath(pathCheckPayment, c.Order.ID),
			"cancelOrder":  commercePath(pathCancelOrder, c.Order.ID),
		},
	}}
}

// checkoutInvoice serves step 3: the invoice and the order, in one transaction.
// Behind the optional idempotency layer the store saves this response with them.
func (s *server) checkoutInvoice(w http.ResponseWriter, r *http.Request) error {
	body, err := readBody(r)
	if err != nil {
		return err
	}
	req, err := decodeOrderInvoice(body)
	if err != nil {
		return err
	}
	iw := kassa.IdempotentWriteFrom(r.Context())
	if iw != nil {
		iw.Respond = func(result any) (int, []byte, error) {
			b, err := marshal(s.orderCreated(result.(kassa.CreatedOrder)))
			return http.StatusOK, b, err
		}
	}
	c, err := s.cfg.Commerce.CreateOrder(r.Context(), principal(r.Context()), req)
	if err != nil {
		return err
	}
	if iw != nil {
		if status, b, ok := iw.Saved(); ok {
			writeRaw(w, status, b)
			return nil
		}
	}
	writeJSON(w, http.StatusOK, s.orderCreated(*c))
	return nil
}

// cancelOrder serves POST .../orders/{orderId}/cancel (Idempotency-Key required).
func (s *server) cancelOrder(w http.ResponseWriter, r *http.Request) error {
	id, err := orderID(r)
	if err != nil {
		return err
	}
	body, err := readBody(r)
	if err != nil {
		return err
	}
	req, err := decodeCancel(body)
	if err != nil {
		return err
	}
	o, err := s.cfg.Commerce.Cancel(r.Context(), principal(r.Context()), id, req)
	if err != nil {
		return err
	}
	commerceOK(w, http.StatusOK, map[string]any{"order": o.JSON(s.now())})
	return nil
}

// simulateOrder serves the devnet simulation. A path through payment_confirmed
// first pays the order's invoice with a devnet payment through the ingestion
// path, which confirms the order as a real payment would.
func (s *server) simulateOrder(w http.ResponseWriter, r *http.Request) error {
	id, err := orderID(r)
	if err != nil {
		return err
	}
	body, err := readBody(r)
	if err != nil {
		return err
	}
	req, err := decodeSimulate(body)
	if err != nil {
		return err
	}
	p := principal(r.Context())
	if p.Environment != kassa.Devnet {
		return errPermission("devnet_only", "Order simulation is available on devnet only.")
	}
	o, err := s.cfg.Commerce.Order(r.Context(), p, id)
	if err != nil {
		return err
	}
	if path, err := kassa.TransitionPath(o, req.TransitionTo); err == nil && path[0] == kassa.OrderPaymentConfirmed {
		if err := s.payOrderInvoice(r, o, req.WalletAddress); err != nil {
			return err
		}
	}
	o, err = s.cfg.Commerce.Simulate(r.Context(), p, id, req)
	if err != nil {
		return err
	}
	commerceOK(w, http.StatusOK, map[string]any{"order": o.JSON(s.now())})
	return nil
}

// payOrderInvoice pays what the order's invoice still owes with a confirmed
// devnet payment, from wallet when it is an EVM address.
func (s *server) payOrderInvoice(r *http.Request, o *kassa.Order, wallet *string) error {
	inv, err := s.cfg.Invoices.Invoice(r.Context(), o.MerchantID, o.InvoiceID)
	if err != nil {
		return err
	}
	if inv.Status != kassa.StatusUnpaid && inv.Status != kassa.StatusUnderpaid {
		return nil // Simulate refuses what cannot be paid
	}
	if s.cfg.Registry == nil || s.cfg.Rates == nil || s.cfg.Payments == nil {
		return errPermission("devnet_only", "Simulated payments are not configured.")
	}
	in, err := s.devnetInput(r, inv, devnetPaymentRequest{confirmed: true})
	if err != nil {
		return err
	}
	if wallet != nil && kassa.CheckEVMAddress("walletAddress", *wallet) == nil {
		in.FromAddress = *wallet
	}
	_, _, err = s.cfg.Payments.IngestPayment(r.Context(), in)
	return err
}

// search serves GET /api/commerce/search (interface 2.9, 4.6).
func (s *server) search(w http.ResponseWriter, r *http.Request) error {
	q, err := parseSearch(r)
	if err != nil {
		return err
	}
	page, err := s.cfg.Commerce.Search(r.Context(), principal(r.Context()), q)
	if err != nil {
		return err
	}
	products := make([]productJSON, len(page.Products))
	for i, p := range page.Products {
		products[i] = newProductJSON(p)
	}
	total := page.TotalPages(q.Limit)
	st := s.cfg.Commerce.CacheStats()
	writeJSON(w, http.StatusOK, map[string]any{
		"success": true,
		"data": map[string]any{
			"products": products,
			"pagination": map[string]any{"page": q.Page, "totalPages": total, "totalResults": page.TotalResults,
				"hasNext": q.Page < total, "limit": q.Limit},
			"query": q.Query, "retailer": q.Retailer,
		},
		"meta": map[string]any{"timestamp": kassa.FormatTime(s.now()), "cacheStats": map[string]any{
			"hits": st.Hits, "misses": st.Misses, "size": st.Size, "maxSize": st.MaxSize, "evictions": st.Evictions,
			"hitRate": json.Number(strconv.FormatFloat(st.HitRate(), 'f', 4, 64)), "ttlSeconds": int(st.TTL.Seconds()),
		}},
	})
	return nil
}

type productJSON struct {
	ProductID   string      `json:"productId"`
	Title       string      `json:"title"`
	Price       json.Number `json:"price"`
	Image       string      `json:"image"`
	Rating      json.Number `json:"rating"`
	ReviewCount int         `json:"reviewCount"`
	Fresh       bool        `json:"fresh"`
	Retailer    string      `json:"retailer"`
	URL         string      `json:"url"`
}

func newProductJSON(p kassa.Product) productJSON {
	rating := strconv.Itoa(int(p.Rating)/10) + "." + strconv.Itoa(int(p.Rating)%10)
	return productJSON{p.ID, p.Title, usd(p.Price), p.Image, json.Number(rating), p.ReviewCount, p.Fresh, p.Retailer, p.URL}
}

// parseSearch validates the search query (interface 4.6 and 8).
func parseSearch(r *http.Request) (kassa.SearchQuery, error) {
	v := r.URL.Query()
	q := kassa.SearchQuery{Query: strings.TrimSpace(v.Get("q")), Retailer: kassa.DefaultRetailer}
	switch n := len([]rune(q.Query)); {
	case !v.Has("q") || n == 0:
		return q, errInvalid("q", "missing_param", "q is required: the words to search for.")
	case n > kassa.MaxSearchQueryLen || !validText(q.Query):
		return q, errInvalid("q", "invalid_query", "q must be 1 to 200 characters of text.")
	}
	var err error
	if q.Page, err = intParam(v, "page", 1, 1, kassa.MaxSearchPage); err != nil {
		return q, err
	}
	if q.Limit, err = intParam(v, "limit", kassa.DefaultSearchLimit, 1, kassa.MaxSearchLimit); err != nil {
		return q, err
	}
	if v.Has("retailer") {
		q.Retailer = strings.TrimSpace(v.Get("retailer"))
		if err := kassa.CheckRetailer("retailer", q.Retailer); err != nil {
			return q, err
		}
	}
	if q.MinPrice, err = priceParam(v.Get("minPrice"), v.Has("minPrice"), "minPrice"); err != nil {
		return q, err
	}
	if q.MaxPrice, err = priceParam(v.Get("maxPrice"), v.Has("maxPrice"), "maxPrice"); err != nil {
		return q, err
	}
	if q.MinPrice != nil && q.MaxPrice != nil && *q.MinPrice > *q.MaxPrice {
		return q, errInvalid("minPrice", "invalid_price_range", "minPrice must not be above maxPrice.")
	}
	return q, nil
}

// priceParam reads a USD price filter: a non-negative decimal, exact to the milli
// (rounded half up beyond), at most 1,000,000,000.
func priceParam(s string, present bool, name string) (*kassa.Millis, error) {
	if !present {
		return nil, nil
	}
	bad := errInvalid(name, "invalid_"+strings.ToLower(name[:3])+"_price", name+" must be a number >= 0 (USD).")
	s = strings.TrimSpace(s)
	whole, frac, _ := strings.Cut(s, ".")
	if whole == "" && frac == "" || len(whole) > 10 || !digits(whole) || !digits(frac) {
		return nil, bad
	}
	m := int64(0)
	for _, c := range whole {
		m = m*10 + int64(c-'0')
	}
	m *= 1000
	for i := 0; i < 3; i++ {
		d := int64(0)
		if i < len(frac) {
			d = int64(frac[i] - '0')
		}
		m += d * []int64{100, 10, 1}[i]
	}
	if len(frac) > 3 && frac[3] >= '5' {
		m++
	}
	v := kassa.Millis(m)
	return &v, nil
}

func digits(s string) bool {
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// validText reports whether s has no control characters.
func validText(s string) bool {
	for _, c := range s {
		if c < 0x20 || c == 0x7f || c == 0xfffd {
			return false
		}
	}
	return true
}
