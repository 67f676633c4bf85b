package commerce

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kassapay/kassa"
)

// countingRetailer counts searches and can be made slow or failing.
type countingRetailer struct {
	Retailer
	calls atomic.Int64
	delay time.Duration
	fail  atomic.Bool
}

func (c *countingRetailer) Search(ctx context.Context, q SearchQuery) (*SearchPage, error) {
	c.calls.Add(1)
	time.Sleep(c.delay)
	if c.fail.Load() {
		return nil, errors.New("upstream down")
	}
	return c.Retailer.Search(ctx, q)
}

type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (f *fakeClock) Now() time.Time { f.mu.Lock(); defer f.mu.Unlock(); return f.now }
func (f *fakeClock) add(d time.Duration) {
	f.mu.Lock()
	f.now = f.now.Add(d)
	f.mu.Unlock()
}

func newTestCatalog(t *testing.T, size int) (*CachedCatalog, *countingRetailer, *fakeClock) {
	t.Helper()
	r := &countingRetailer{Retailer: NewBuiltin(RetailerAmazon)}
	clock := &fakeClock{now: time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC)}
	c := NewCatalog(CatalogConfig{Retailers: map[kassa.Environment][]Retailer{kassa.Devnet: {r}},
		CacheTTL: time.Minute, CacheSize: size, Now: clock.Now})
	return c, r, clock
}

func q(s string) SearchQuery {
	return SearchQuery{Query: s, Retailer: RetailerAmazon, Page: 1, Limit: 20}
}

func TestCacheHitMissExpiryEviction(t *testing.T) {
	c, r, clock := newTestCatalog(t, 2)
	ctx := context.Background()
	steps := []struct {
		query     string
		advance   time.Duration
		wantCalls int64
	}{
		{"water bottle", 0, 1},                // miss
		{"Water  Bottle", 0, 1},               // hit: same words
		{"water bottle", 59 * time.Second, 1}, // hit: still fresh
		{"water bottle", 2 * time.Second, 2},  // expired: miss
		{"tent", 0, 3},                        // miss
		{"headphones", 0, 4},                  // miss; evicts the least recent ("water bottle")
		{"tent", 0, 4},                        // hit
		{"water bottle", 0, 5},                // evicted: miss
	}
	for i, s := range steps {
		clock.add(s.advance)
		if _, err := c.Search(ctx, kassa.Devnet, q(s.query)); err != nil {
			t.Fatal(err)
		}
		if got := r.calls.Load(); got != s.wantCalls {
			t.Fatalf("step %d (%q): %d upstream calls, want %d", i, s.query, got, s.wantCalls)
		}
	}
	st := c.CacheStats()
	if st.Hits != 3 || st.Misses != 5 || st.Size != 2 || st.MaxSize != 2 || st.Evictions < 1 || st.HitRate() != 3.0/8 {
		t.Fatalf("stats %+v", st)
	}
}

func TestCacheCollapsesConcurrentMisses(t *testing.T) {
	c, r, _ := newTestCatalog(t, 100)
	r.delay = 50 * time.Millisecond
	var wg sync.WaitGroup
	for i := 0; i < 50; i++ {
		wg.Go(func() {
			if p, err := c.Search(context.Background(), kassa.Devnet, q("organic milk")); err != nil || p.TotalResults == 0 {
				t.Errorf("search: %v", err)
			}
		})
	}
	wg.Wait()
	if n := r.calls.Load(); n != 1 {
		t.Fatalf("%d upstream calls for 50 concurrent identical misses, want 1", n)
	}
}

func TestCacheDoesNotKeepErrors(t *testing.T) {
	c, r, _ := newTestCatalog(t, 100)
	r.fail.Store(true)
	if _, err := c.Search(context.Background(), kassa.Devnet, q("tent")); err == nil {
		t.Fatal("want the upstream error")
	}
	r.fail.Store(false)
	if _, err := c.Search(context.Background(), kassa.Devnet, q("tent")); err != nil {
		t.Fatalf("error was cached: %v", err)
	}
	if r.calls.Load() != 2 {
		t.Fatalf("%d calls", r.calls.Load())
	}
}

func TestCatalogRetailers(t *testing.T) {
	c, _, _ := newTestCatalog(t, 10)
	if _, err := c.Retailer(kassa.Devnet, "ebay"); kassa.ErrorCode(err) != "invalid_retailer" {
		t.Errorf("unknown: %v", err)
	}
	if _, err := c.Retailer(kassa.Devnet, RetailerShopify); kassa.ErrorCode(err) != "retailer_not_supported" {
		t.Errorf("unserved: %v", err)
	}
	if _, err := c.Retailer(kassa.Mainnet, RetailerAmazon); kassa.ErrorCode(err) != "retailer_not_supported" {
		t.Errorf("mainnet: %v", err)
	}
}
