package store

import (
	"strings"
	"sync"

	"github.com/kassapay/kassa"
)

// maxCachedEndpointSets bounds endpointCache: past it the cache starts again.
const maxCachedEndpointSets = 4096

// endpointCache keeps each merchant environment's enabled webhook endpoints as
// SQLite's writer last read them, so that writing an event does not query them
// again: that query was 5 % of an invoice create's CPU, on the writer's path
// (issue 17). Any statement of the writer's but a SELECT that names
// webhook_endpoints, and any rollback, empties the cache, so what it holds is what
// the writer's next read would give. On SQLite only serve's writer changes which
// endpoints are enabled and what they want (the API, the webhook worker's
// auto-disable); `kassa secrets rotate`, from another process, re-seals their
// secrets, which a delivery does not take from here. PostgreSQL, written by
// several instances, has none (a nil cache caches nothing).
type endpointCache struct {
	mu   sync.Mutex
	sets map[endpointSetKey][]*kassa.WebhookEndpoint
}

type endpointSetKey struct {
	merchantID int64
	env        kassa.Environment
}

// get returns the cached endpoints of a merchant environment; ok is false when
// they are not cached. The endpoints are shared: callers must not change them.
func (c *endpointCache) get(merchantID int64, env kassa.Environment) (eps []*kassa.WebhookEndpoint, ok bool) {
	if c == nil {
		return nil, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	eps, ok = c.sets[endpointSetKey{merchantID, env}]
	return eps, ok
}

// put caches the endpoints the writer has just read.
func (c *endpointCache) put(merchantID int64, env kassa.Environment, eps []*kassa.WebhookEndpoint) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.sets == nil || len(c.sets) >= maxCachedEndpointSets {
		c.sets = map[endpointSetKey][]*kassa.WebhookEndpoint{}
	}
	c.sets[endpointSetKey{merchantID, env}] = eps
}

// reset empties the cache.
func (c *endpointCache) reset() {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.sets = nil
}

// statement empties the cache before the writer runs query when query may change
// webhook endpoints: a statement that names the table and is not a SELECT.
func (c *endpointCache) statement(query string) {
	if c != nil && strings.Contains(query, "webhook_endpoints") && !isSelect(query) {
		c.reset()
	}
}

// isSelect reports whether query is a SELECT (possibly parenthesized).
func isSelect(query string) bool {
	q := strings.TrimLeft(query, " \t\r\n(")
	return len(q) >= 6 && strings.EqualFold(q[:6], "SELECT")
}
