package commerce

import (
	"container/list"
	"context"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/kassapay/kassa"
)

// Cache defaults.
const (
	DefaultCacheTTL  = 5 * time.Minute
	DefaultCacheSize = 2_000
)

// CatalogConfig says which retailers serve each environment and how searches are
// cached.
type CatalogConfig struct {
	Retailers map[kassa.Environment][]Retailer
	CacheTTL  time.Duration    // 0: DefaultCacheTTL
	CacheSize int              // entries; 0: DefaultCacheSize
	Now       func() time.Time // nil: time.Now
}

// CachedCatalog routes to the retailers of each environment and caches searches: an LRU
// of at most CacheSize entries that live CacheTTL, where concurrent identical
// misses share one upstream call. Errors are not cached. It implements
// Catalog.
type CachedCatalog struct {
	retailers map[kassa.Environment]map[string]Retailer
	ttl       time.Duration
	size      int
	now       func() time.Time

	mu       sync.Mutex
	lru      *list.List // of *cacheEntry, most recent first
	entries  map[string]*list.Element
	inflight map[string]*flight
	hits     int64
	misses   int64
	evicted  int64
}

type cacheEntry struct {
	key     string
	page    *SearchPage
	expires time.Time
}

// flight is one upstream search that identical concurrent misses wait for.
type flight struct {
	done chan struct{}
	page *SearchPage
	err  error
}

var _ Catalog = (*CachedCatalog)(nil)

// NewCatalog returns a catalog over cfg's retailers.
func NewCatalog(cfg CatalogConfig) *CachedCatalog {
	c := &CachedCatalog{retailers: map[kassa.Environment]map[string]Retailer{}, ttl: cfg.CacheTTL, size: cfg.CacheSize,
		now: cfg.Now, lru: list.New(), entries: map[string]*list.Element{}, inflight: map[string]*flight{}}
	if c.ttl <= 0 {
		c.ttl = DefaultCacheTTL
	}
	if c.size <= 0 {
		c.size = DefaultCacheSize
	}
	if c.now == nil {
		c.now = time.Now
	}
	for env, rs := range cfg.Retailers {
		c.retailers[env] = map[string]Retailer{}
		for _, r := range rs {
			c.retailers[env][r.Name()] = r
		}
	}
	return c
}

// Retailer returns env's provider of the named retailer.
func (c *CachedCatalog) Retailer(env kassa.Environment, name string) (Retailer, error) {
	if err := CheckRetailer("retailer", name); err != nil {
		return nil, err
	}
	r, ok := c.retailers[env][name]
	if !ok {
		return nil, kassa.Invalidf("retailer", "retailer_not_supported",
			"%s is not available on %s: no provider is configured for it.", name, env)
	}
	return r, nil
}

func cacheKey(env kassa.Environment, q SearchQuery) string {
	price := func(m *kassa.Millis) string {
		if m == nil {
			return "-"
		}
		return strconv.FormatInt(int64(*m), 10)
	}
	return strings.Join([]string{string(env), q.Retailer, strings.Join(tokenize(q.Query), " "),
		strconv.Itoa(q.Page), strconv.Itoa(q.Limit), price(q.MinPrice), price(q.MaxPrice)}, "\x00")
}

// Search answers from the cache or asks the retailer once for all identical
// concurrent misses.
func (c *CachedCatalog) Search(ctx context.Context, env kassa.Environment, q SearchQuery) (*SearchPage, error) {
	r, err := c.Retailer(env, q.Retailer)
	if err != nil {
		return nil, err
	}
	key := cacheKey(env, q)
	c.mu.Lock()
	if el, ok := c.entries[key]; ok {
		e := el.Value.(*cacheEntry)
		if c.now().Before(e.expires) {
			c.lru.MoveToFront(el)
			c.hits++
			c.mu.Unlock()
			return e.page, nil
		}
		c.lru.Remove(el)
		delete(c.entries, key)
	}
	c.misses++
	if f, ok := c.inflight[key]; ok {
		c.mu.Unlock()
		select {
		case <-f.done:
			return f.page, f.err
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	f := &flight{done: make(chan struct{})}
	c.inflight[key] = f
	c.mu.Unlock()

	// The shared call runs detached from this caller, so one client hanging up
	// does not fail the others waiting on it.
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	f.page, f.err = r.Search(sctx, q)
	cancel()

	c.mu.Lock()
	delete(c.inflight, key)
	if f.err == nil {
		c.entries[key] = c.lru.PushFront(&cacheEntry{key: key, page: f.page, expires: c.now().Add(c.ttl)})
		for c.lru.Len() > c.size {
			old := c.lru.Back()
			c.lru.Remove(old)
			delete(c.entries, old.Value.(*cacheEntry).key)
			c.evicted++
		}
	}
	c.mu.Unlock()
	close(f.done)
	return f.page, f.err
}

// CacheStats reports the cache's counters.
func (c *CachedCatalog) CacheStats() CacheStats {
	c.mu.Lock()
	defer c.mu.Unlock()
	return CacheStats{Hits: c.hits, Misses: c.misses, Size: c.lru.Len(), MaxSize: c.size, Evictions: c.evicted, TTL: c.ttl}
}
