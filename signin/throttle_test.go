package signin_test

import (
	"testing"
	"time"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/signin"
)

func TestHeldError(t *testing.T) {
	for _, tc := range []struct {
		after time.Duration
		want  int
	}{{0, 1}, {time.Millisecond, 1}, {time.Second, 1}, {1500 * time.Millisecond, 2}, {15 * time.Minute, 900}} {
		err := error(&signin.Held{RetryAfter: tc.after})
		if got := (&signin.Held{RetryAfter: tc.after}).RetrySeconds(); got != tc.want {
			t.Errorf("RetrySeconds(%s) = %d, want %d", tc.after, got, tc.want)
		}
		if e := kassa.AsError(err); e.Kind != kassa.KindRateLimited || e.Code != "too_many_attempts" {
			t.Errorf("a hold is %s %s", e.Kind, e.Code)
		}
	}
}
