package httpx_test

import (
	"context"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"github.com/kassapay/kassa/api/httpx"
	"github.com/kassapay/kassa/store/storetest"
)

// BenchmarkRateLimit is the cost of one request's rate-limit check, headers
// included, with the budgets in memory and in the store (shared by instances).
// Keys rotate over 1,000 credentials, each with room to spare.
//
//	KASSA_TEST_POSTGRES_DSN=... go test ./api/httpx -run '^$' -bench RateLimit
func BenchmarkRateLimit(b *testing.B) {
	limiters := []struct {
		name string
		open func(b *testing.B) httpx.RateLimiter
	}{
		{"memory", func(*testing.B) httpx.RateLimiter { return httpx.NewLimiter(1e6, 1e6, time.Now) }},
		{"sqlite", func(b *testing.B) httpx.RateLimiter {
			return httpx.NewSharedLimiter(storetest.Open(b, storetest.SQLiteConfig(b)), "general", 1e6, 1e6)
		}},
		{"postgres", func(b *testing.B) httpx.RateLimiter {
			return httpx.NewSharedLimiter(storetest.Open(b, storetest.PostgresConfig(b)), "general", 1e6, 1e6)
		}},
	}
	keys := make([]string, 1000)
	for i := range keys {
		keys[i] = "key:" + strconv.Itoa(i)
	}
	for _, l := range limiters {
		b.Run(l.name, func(b *testing.B) {
			lim := l.open(b)
			ctx := context.Background()
			w := httptest.NewRecorder()
			for i := 0; b.Loop(); i++ {
				if err := httpx.Apply(ctx, w, lim, keys[i%len(keys)]); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
