package store

import (
	"testing"
	"time"

	"github.com/kassapay/kassa"
)

// TestKeyCacheRevokeDuringRead checks that a row read before a revoke is not cached
// after it, and that entries expire after keyCacheTTL.
func TestKeyCacheRevokeDuringRead(t *testing.T) {
	c := newKeyCache()
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	k := kassa.APIKey{ID: "k", Prefix: "p"}

	gen := c.generation() // a read begins
	c.forget("p")         // the key is revoked meanwhile
	c.put(k, []byte("h"), now, gen)
	if _, _, ok := c.get("p", now); ok {
		t.Fatal("a row read before a revoke was cached after it")
	}

	c.put(k, []byte("h"), now, c.generation())
	if _, _, ok := c.get("p", now.Add(keyCacheTTL-time.Millisecond)); !ok {
		t.Fatal("fresh entry not found")
	}
	if _, _, ok := c.get("p", now.Add(keyCacheTTL)); ok {
		t.Fatal("entry outlived keyCacheTTL")
	}
}
