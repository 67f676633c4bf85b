package signin_test

import (
	"testing"
	"time"

	"github.com/kassapay/kassa/signin"
)

// TestDashboardSessionIdle: a session is idle kassa.DashboardIdleTimeout after its
// last recorded use, and a request records itself once that use is
// kassa.DashboardTouchEvery old.
func TestDashboardSessionIdle(t *testing.T) {
	seen := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	s := &signin.DashboardSession{LastSeenAt: seen}
	tests := []struct {
		after       time.Duration
		idle, touch bool
	}{
		{0, false, false},
		{59 * time.Second, false, false},
		{time.Minute, false, true},
		{29*time.Minute + 59*time.Second, false, true},
		{30 * time.Minute, true, true},
		{31 * time.Minute, true, true},
	}
	for _, tt := range tests {
		now := seen.Add(tt.after)
		if got := s.Idle(now); got != tt.idle {
			t.Errorf("Idle after %v = %v, want %v", tt.after, got, tt.idle)
		}
		if got := s.NeedsTouch(now); got != tt.touch {
			t.Errorf("NeedsTouch after %v = %v, want %v", tt.after, got, tt.touch)
		}
	}
}
