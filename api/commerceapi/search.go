package commerceapi

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/api/httpx"
	"github.com/kassapay/kassa/commerce"
)

// Search serves GET /api/commerce/search (docs/api.md 2.9, 4.6).
func (a *API) Search(w http.ResponseWriter, r *http.Request) error {
	q, err := parseSearch(r)
	if err != nil {
		return err
	}
	page, err := a.shop.Search(r.Context(), httpx.Principal(r.Context()), q)
	if err != nil {
		return err
	}
	products := make([]productJSON, len(page.Products))
	for i, p := range page.Products {
		products[i] = newProductJSON(p)
	}
	total := page.TotalPages(q.Limit)
	st := a.shop.CacheStats()
	httpx.WriteJSON(w, http.StatusOK, map[string]any{
		"success": true,
		"data": map[string]any{
			"products": products,
			"pagination": map[string]any{"page": q.Page, "totalPages": total, "totalResults": page.TotalResults,
				"hasNext": q.Page < total, "limit": q.Limit},
			"query": q.Query, "retailer": q.Retailer,
		},
		"meta": map[string]any{"timestamp": kassa.FormatTime(a.now()), "cacheStats": map[string]any{
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

func newProductJSON(p commerce.Product) productJSON {
	rating := strconv.Itoa(int(p.Rating)/10) + "." + strconv.Itoa(int(p.Rating)%10)
	return productJSON{p.ID, p.Title, usd(p.Price), p.Image, json.Number(rating), p.ReviewCount, p.Fresh, p.Retailer, p.URL}
}

// parseSearch validates the search query (docs/api.md 4.6 and 8).
func parseSearch(r *http.Request) (commerce.SearchQuery, error) {
	v := r.URL.Query()
	q := commerce.SearchQuery{Query: strings.TrimSpace(v.Get("q")), Retailer: commerce.DefaultRetailer}
	switch n := len([]rune(q.Query)); {
	case !v.Has("q") || n == 0:
		return q, httpx.ErrInvalid("q", "missing_param", "q is required: the words to search for.")
	case n > commerce.MaxSearchQueryLen || !commerce.PlainText(q.Query):
		return q, httpx.ErrInvalid("q", "invalid_query", "q must be 1 to 200 characters of text.")
	}
	var err error
	if q.Page, err = httpx.IntParam(v, "page", 1, 1, commerce.MaxSearchPage); err != nil {
		return q, err
	}
	if q.Limit, err = httpx.IntParam(v, "limit", commerce.DefaultSearchLimit, 1, commerce.MaxSearchLimit); err != nil {
		return q, err
	}
	if r := strings.TrimSpace(v.Get("retailer")); r != "" { // empty, like absent, is the default
		q.Retailer = r
		if err := commerce.CheckRetailer("retailer", q.Retailer); err != nil {
			return q, err
		}
	}
	if q.MinPrice, err = priceParam(v.Get("minPrice"), "minPrice"); err != nil {
		return q, err
	}
	if q.MaxPrice, err = priceParam(v.Get("maxPrice"), "maxPrice"); err != nil {
		return q, err
	}
	if q.MinPrice != nil && q.MaxPrice != nil && *q.MinPrice > *q.MaxPrice {
		return q, httpx.ErrInvalid("minPrice", "invalid_price_range", "minPrice must not be above maxPrice.")
	}
	return q, nil
}

// priceParam reads a USD price filter: a non-negative decimal, exact to the milli
// (rounded half up beyond), at most 1,000,000,000. Empty is absent.
func priceParam(s string, name string) (*kassa.Millis, error) {
	if s = strings.TrimSpace(s); s == "" {
		return nil, nil
	}
	m, ok := kassa.ParsePrice(s)
	if !ok {
		return nil, httpx.ErrInvalid(name, "invalid_"+strings.ToLower(name[:3])+"_price", name+" must be a number >= 0 (USD).")
	}
	return &m, nil
}
