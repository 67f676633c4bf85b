package commerce

import (
	"context"
	"strings"
	"testing"

	"github.com/kassapay/kassa"
)

func search(t *testing.T, b *Builtin, q SearchQuery) *SearchPage {
	t.Helper()
	if q.Page == 0 {
		q.Page = 1
	}
	if q.Limit == 0 {
		q.Limit = DefaultSearchLimit
	}
	p, err := b.Search(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestBuiltinIsDeterministic(t *testing.T) {
	a, b := NewBuiltin(RetailerAmazon), NewBuiltin(RetailerAmazon)
	if len(a.Products()) != CatalogSize {
		t.Fatalf("%d products", len(a.Products()))
	}
	for i := range a.Products() {
		if a.Products()[i] != b.Products()[i] {
			t.Fatalf("product %d differs: %+v vs %+v", i, a.Products()[i], b.Products()[i])
		}
	}
	s := NewBuiltin(RetailerShopify)
	fresh := 0
	for _, p := range append(a.Products(), s.Products()...) {
		if p.Price < 1000 || p.Price%10 != 0 || p.Rating < 10 || p.Rating > 50 || p.ID == "" ||
			!strings.HasPrefix(p.Image, "https://") || !strings.HasPrefix(p.URL, "https://") {
			t.Fatalf("unrealistic product %+v", p)
		}
		if p.Fresh {
			fresh++
		}
	}
	if fresh == 0 || s.Products()[0].Retailer != RetailerShopify || !strings.Contains(s.Products()[0].URL, "myshopify.com") {
		t.Fatalf("fresh %d, shopify %+v", fresh, s.Products()[0])
	}
}

func TestSearchRanking(t *testing.T) {
	b := NewBuiltin(RetailerAmazon)
	tests := []struct {
		name  string
		q     string
		check func(t *testing.T, p Product)
	}{
		{"all words", "insulated water bottle", func(t *testing.T, p Product) {
			for _, w := range []string{"insulated", "water", "bottle"} {
				if !strings.Contains(strings.ToLower(p.Title), w) {
					t.Errorf("%q lacks %q", p.Title, w)
				}
			}
		}},
		{"plural folds", "bottles", func(t *testing.T, p Product) {
			if !strings.Contains(strings.ToLower(p.Title), "bottle") {
				t.Errorf("%q", p.Title)
			}
		}},
		{"prefix of last word", "organic straw", func(t *testing.T, p Product) {
			if !strings.Contains(strings.ToLower(p.Title), "strawberries") {
				t.Errorf("%q", p.Title)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			page := search(t, b, SearchQuery{Query: tt.q})
			if page.TotalResults == 0 || len(page.Products) == 0 {
				t.Fatalf("no results for %q", tt.q)
			}
			for _, p := range page.Products {
				tt.check(t, p)
			}
		})
	}
	// The exact phrase ranks first.
	page := search(t, b, SearchQuery{Query: "water bottle", Limit: 50})
	seenNonPhrase := false
	for _, p := range page.Products {
		has := strings.Contains(strings.ToLower(p.Title), "water bottle")
		if has && seenNonPhrase {
			t.Fatalf("phrase match %q ranked after a non-phrase match", p.Title)
		}
		seenNonPhrase = seenNonPhrase || !has
	}
	// Queries that share a cache entry (the same folded words) rank alike.
	for _, q := range []string{"Water-Bottles", "  water   BOTTLE ", "water bottles"} {
		other := search(t, b, SearchQuery{Query: q, Limit: 50})
		if len(other.Products) != len(page.Products) {
			t.Fatalf("%q: %d products, want %d", q, len(other.Products), len(page.Products))
		}
		for i := range other.Products {
			if other.Products[i].ID != page.Products[i].ID {
				t.Fatalf("%q ranks %s at %d, %q ranks %s", q, other.Products[i].ID, i, "water bottle", page.Products[i].ID)
			}
		}
	}
	if none := search(t, b, SearchQuery{Query: "quantum zebra"}); none.TotalResults != 0 || len(none.Products) != 0 {
		t.Fatalf("nonsense matched %d", none.TotalResults)
	}
}

func TestSearchPagingAndPrices(t *testing.T) {
	b := NewBuiltin(RetailerAmazon)
	all := search(t, b, SearchQuery{Query: "organic", Limit: 50, Page: 1})
	p2 := search(t, b, SearchQuery{Query: "organic", Limit: 10, Page: 2})
	if all.TotalResults != p2.TotalResults || len(p2.Products) != 10 || p2.Products[0] != all.Products[10] {
		t.Fatalf("page 2 is not items 11-20: total %d/%d", all.TotalResults, p2.TotalResults)
	}
	if all.TotalPages(10) != (all.TotalResults+9)/10 {
		t.Fatal("TotalPages")
	}
	past := search(t, b, SearchQuery{Query: "organic", Limit: 50, Page: 100})
	if len(past.Products) != 0 || past.TotalResults != all.TotalResults {
		t.Fatalf("page past the end: %d", len(past.Products))
	}
	lo, hi := kassa.Millis(5_000), kassa.Millis(10_000)
	ranged := search(t, b, SearchQuery{Query: "organic", Limit: 50, MinPrice: &lo, MaxPrice: &hi})
	if ranged.TotalResults == 0 || ranged.TotalResults >= all.TotalResults {
		t.Fatalf("price filter: %d of %d", ranged.TotalResults, all.TotalResults)
	}
	for _, p := range ranged.Products {
		if p.Price < lo || p.Price > hi {
			t.Fatalf("%q at %s outside range", p.Title, p.Price.Number())
		}
	}
}

func BenchmarkSearch(b *testing.B) {
	cat := NewBuiltin(RetailerAmazon)
	queries := []string{"water bottle", "organic milk", "wireless headphones", "cast iron skillet", "usb c cable", "tent"}
	b.Run("index", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			_, _ = cat.Search(context.Background(), SearchQuery{Query: queries[i%len(queries)], Page: 1, Limit: 20})
		}
	})
	c := NewCatalog(CatalogConfig{Retailers: map[kassa.Environment][]Retailer{kassa.Devnet: {cat}}})
	b.Run("cached", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			_, _ = c.Search(context.Background(), kassa.Devnet, SearchQuery{Query: queries[i%len(queries)],
				Retailer: RetailerAmazon, Page: 1, Limit: 20})
		}
	})
}
