package dashboard

import (
	"strings"
	"testing"
	"time"

	"github.com/kassapay/kassa"
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
		{"scaled to the largest day", []kassa.DayTotal{{Day: day(0), Paid: 1, Gross: 1000}, {Day: day(29), Paid: 4, Gross: 4000}},
			map[int]int{0: chartPlot / 4, 1: 0, 29: chartPlot}, 4000},
		{"a tiny day still shows", []kassa.DayTotal{{Day: day(3), Paid: 1, Gross: 1}, {Day: day(4), Paid: 1, Gross: 10_000_000}},
			map[int]int{3: 1, 4: chartPlot}, 10_000_000},
		{"net of refunds", []kassa.DayTotal{{Day: day(1), Paid: 2, Gross: 4000, Refunds: 1, Refunded: 2000}, {Day: day(2), Paid: 1, Gross: 1000}},
			map[int]int{1: chartPlot, 2: chartPlot / 2}, 2000},
		{"a day of more refunds than payments has no bar", []kassa.DayTotal{{Day: day(1), Paid: 1, Gross: 1000}, {Day: day(2), Refunds: 1, Refunded: 3000}},
			map[int]int{1: chartPlot, 2: 0}, 1000},
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

// TestChartRows: the table lists the days with a payment or a refund, newest
// first, with their net volume; days with neither are left out (issue 37,
// finding 12), while the bars keep every day.
func TestChartRows(t *testing.T) {
	first := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	day := func(i int) time.Time { return first.AddDate(0, 0, i) }
	c := newChart(first, 30, []kassa.DayTotal{{Day: day(3), Paid: 2, Gross: 15000},
		{Day: day(20), Paid: 1, Gross: 17320, Refunds: 1, Refunded: 16820}, {Day: day(29), Refunds: 1, Refunded: 2500}})
	var got []string
	for _, r := range c.Rows {
		got = append(got, r.Label+" "+itoa(r.Paid)+" "+itoa(r.Refunds)+" "+r.Volume.USD())
	}
	want := []string{"2026-11-30 0 1 -$2.50", "2026-11-21 1 1 $0.50", "2026-11-04 2 0 $15.00"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("rows %q, want %q", got, want)
	}
	if len(c.Days) != 30 || c.Total != 13000 {
		t.Fatalf("%d bars, total %d", len(c.Days), c.Total)
	}
}
