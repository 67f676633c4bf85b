package commerce

import (
	"math"
	"sort"
	"strings"
	"unicode"
)

// searchIndex finds products whose titles hold every query word. Words are
// lower-cased and a trailing plural "s" is folded ("bottles" finds "Bottle");
// the last query word also matches as a prefix ("blue jea" finds "Blue Jeans").
type searchIndex struct {
	products []Product
	postings map[string][]int32 // word → product indices, ascending
	vocab    []string           // every indexed word, sorted, for prefix lookups
	quality  []float64          // rating × log(reviews), the tie-breaker
	words    map[int32][]string // product → its title words, in order
}

// tokenize splits text into lower-case words of letters and digits, plural folded.
func tokenize(s string) []string {
	fields := strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
	for i, f := range fields {
		fields[i] = fold(f)
	}
	return fields
}

func fold(w string) string {
	if len(w) > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") {
		return w[:len(w)-1]
	}
	return w
}

func newSearchIndex(products []Product) *searchIndex {
	ix := &searchIndex{products: products, postings: map[string][]int32{}, words: map[int32][]string{},
		quality: make([]float64, len(products))}
	for i, p := range products {
		ix.quality[i] = float64(p.Rating) * math.Log1p(float64(p.ReviewCount))
		words := tokenize(p.Title)
		ix.words[int32(i)] = words
		seen := map[string]bool{}
		for _, w := range words {
			if !seen[w] {
				seen[w] = true
				ix.postings[w] = append(ix.postings[w], int32(i))
			}
		}
	}
	for w := range ix.postings {
		ix.vocab = append(ix.vocab, w)
	}
	sort.Strings(ix.vocab)
	return ix
}

// matches returns the products holding word exactly, or, when prefix, any word
// starting with it.
func (ix *searchIndex) matches(word string, prefix bool) []int32 {
	if !prefix {
		return ix.postings[word]
	}
	set := map[int32]bool{}
	for i := sort.SearchStrings(ix.vocab, word); i < len(ix.vocab) && strings.HasPrefix(ix.vocab[i], word); i++ {
		for _, p := range ix.postings[ix.vocab[i]] {
			set[p] = true
		}
	}
	out := make([]int32, 0, len(set))
	for p := range set {
		out = append(out, p)
	}
	sort.Slice(out, func(a, b int) bool { return out[a] < out[b] })
	return out
}

func intersect(a, b []int32) []int32 {
	var out []int32
	for i, j := 0, 0; i < len(a) && j < len(b); {
		switch {
		case a[i] == b[j]:
			out = append(out, a[i])
			i++
			j++
		case a[i] < b[j]:
			i++
		default:
			j++
		}
	}
	return out
}

// inSequence reports whether the query words stand in the title words one after
// another (the last as a prefix, as it may be half typed). It works on folded
// words, so every query sharing a cache entry ranks the same.
func inSequence(title, words []string) bool {
	for start := 0; start+len(words) <= len(title); start++ {
		ok := true
		for j, w := range words {
			t := title[start+j]
			if t != w && (j < len(words)-1 || !strings.HasPrefix(t, w)) {
				ok = false
				break
			}
		}
		if ok {
			return true
		}
	}
	return false
}

// search returns one page of products matching every word of q within its price
// range, ranked: the exact phrase in the title first, then titles whose words
// match earliest, then rating × log(reviews), then id.
func (ix *searchIndex) search(q SearchQuery) *SearchPage {
	words := tokenize(q.Query)
	page := &SearchPage{Products: []Product{}}
	if len(words) == 0 {
		return page
	}
	var hits []int32
	for i, w := range words {
		m := ix.matches(w, i == len(words)-1)
		if i == 0 {
			hits = m
		} else {
			hits = intersect(hits, m)
		}
		if len(hits) == 0 {
			return page
		}
	}
	type scored struct {
		i      int32
		phrase bool
		pos    int
	}
	var found []scored
	for _, i := range hits {
		p := ix.products[i]
		if (q.MinPrice != nil && p.Price < *q.MinPrice) || (q.MaxPrice != nil && p.Price > *q.MaxPrice) {
			continue
		}
		found = append(found, scored{i, inSequence(ix.words[i], words), ix.position(i, words)})
	}
	sort.Slice(found, func(a, b int) bool {
		x, y := found[a], found[b]
		if x.phrase != y.phrase {
			return x.phrase
		}
		if x.pos != y.pos {
			return x.pos < y.pos
		}
		if ix.quality[x.i] != ix.quality[y.i] {
			return ix.quality[x.i] > ix.quality[y.i]
		}
		return ix.products[x.i].ID < ix.products[y.i].ID
	})
	page.TotalResults = len(found)
	start := (q.Page - 1) * q.Limit
	for k := start; k < len(found) && k < start+q.Limit; k++ {
		page.Products = append(page.Products, ix.products[found[k].i])
	}
	return page
}

// position sums where each query word first appears in the title: lower means
// the query names what the product is rather than a detail of it.
func (ix *searchIndex) position(i int32, words []string) int {
	sum := 0
	tw := ix.words[i]
	for k, w := range words {
		for j, t := range tw {
			if t == w || (k == len(words)-1 && strings.HasPrefix(t, w)) {
				sum += j
				break
			}
		}
	}
	return sum
}
