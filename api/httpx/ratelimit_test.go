package httpx

import (
	"context"
	"testing"
	"time"
)

func TestLimiter(t *testing.T) {
	now := time.Unix(1000, 0)
	l := NewLimiter(2, 4, func() time.Time { return now })
	for i := 0; i < 4; i++ {
		if d := take(l, "a"); !d.allowed || d.remaining != 3-i {
			t.Fatalf("take %d: %+v", i, d)
		}
	}
	d := take(l, "a")
	if d.allowed || d.retryAfter != 1 || d.remaining != 0 || d.limit != 4 {
		t.Fatalf("empty bucket: %+v", d)
	}
	now = now.Add(500 * time.Millisecond) // one token back
	if d := take(l, "a"); !d.allowed {
		t.Fatalf("after refill: %+v", d)
	}
	if d := take(l, "b"); !d.allowed || d.remaining != 3 {
		t.Fatalf("other key: %+v", d)
	}
	now = now.Add(2 * time.Minute) // everything refilled and idle: swept
	take(l, "c")
	if n := l.size(); n != 1 {
		t.Errorf("%d buckets after the sweep, want 1", n)
	}
}

// size is the number of live buckets (for tests).
func (l *Limiter) size() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.buckets)
}

// take takes one token from l's bucket for key.
func take(l *Limiter, key string) decision {
	d, _ := l.take(context.Background(), key)
	return d
}
