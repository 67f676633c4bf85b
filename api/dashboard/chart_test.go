package dashboard

import (
	"testing"
	"time"

	"kassa"
)

func TestNewChart(t *testing.T) {
	first := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	day := func(i int) time.Time { return first.AddDate(0, 0, i) }
	tests := []struct {
		name    string
		totals  []kassa.DayTotal
		heights map[int]int // day index → bar height
		max     kassa.Millis
	}{
		{"none", nil, map[int]int{0: 0, 29: 0}, 0},
		{"scaled to the largest day", []kassa.DayTotal{{Day: day(0), Paid: 1, Volume: 1000}, {Day: day(29), Paid: 4, Volume: 4000}},
			map[int]int{0: chartPlot / 4, 1: 0, 29: chartPlot}, 4000},
		{"a tiny day still shows", []kassa.DayTotal{{Day: day(3), Paid: 1, Volume: 1}, {Day: day(4), Paid: 1, Volume: 10_000_000}},
			map[int]int{3: 1, 4: chartPlot}, 10_000_000},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newChart(first, 30, tt.totals)
			if len(c.Days) != 30 || c.Max != tt.max || c.First != "2026-11-01" || c.Last != "2026-11-30" {
				t.Fatalf("chart %d days, max %d, %s to %s", len(c.Days), c.Max, c.First, c.Last)
			}
			for i, h := range tt.heights {
				if d := c.Days[i]; d.H != h || d.Y+d.H != c.Base {
					t.Errorf("day %d: height %d at %d, want %d on the axis %d", i, d.H, d.Y, h, c.Base)
				}
			}
			if !c.Days[29].ShowLabel || c.Days[28].ShowLabel || !c.Days[22].ShowLabel {
				t.Errorf("the dates are not under every seventh bar from the last")
			}
		})
	}
}
