package dashboard

import (
	"time"

	"github.com/kassapay/kassa"
)

// chart is the overview's bar chart of net volume per day, drawn as inline SVG
// by the template from these integer coordinates, with the same numbers in a table.
type chart struct {
	Days         []chartDay   // every day, oldest first: the bars
	Rows         []chartDay   // the days with a payment or a refund, newest first: the table
	Max          kassa.Millis // the tallest bar's volume, the axis top
	Total        kassa.Millis
	Width        int // the viewBox
	Height       int
	Base         int // y of the axis line
	First, Last  string
	HasAnyVolume bool
}

// chartDay is one day's bar and its table row.
type chartDay struct {
	Day           time.Time
	Label         string // 2026-11-24
	AxisLabel     string // Nov 24, under every seventh bar
	Paid          int64
	Refunds       int64
	Refunded      kassa.Millis
	Volume        kassa.Millis // net of refunds; below zero on a day of more refunds than payments
	X, Y, W, H    int          // the bar
	LabelX, TextY int          // where the date is written under some bars
	ShowLabel     bool
	Anchor        string // the label's text-anchor: the last one ends at its bar, inside the chart
}

// Chart geometry, in viewBox units.
const (
	chartBarWidth = 16
	chartGap      = 4
	chartTop      = 20  // room for the axis top's label
	chartPlot     = 160 // the tallest bar's height
	chartBottom   = 24  // room for the dates
)

// newChart lays out n days from first (midnight UTC), filling days without a paid
// invoice or a refund with zero; heights scale to the largest day in integers, and
// a day below zero has no bar (its row in the table says how much).
func newChart(first time.Time, n int, totals []kassa.DayTotal) chart {
	by := map[int64]kassa.DayTotal{}
	for _, t := range totals {
		by[t.Day.Unix()] = t
	}
	c := chart{Width: n*(chartBarWidth+chartGap) + chartGap, Base: chartTop + chartPlot}
	c.Height = c.Base + chartBottom
	for i := range n {
		day := first.AddDate(0, 0, i)
		t := by[day.Unix()]
		c.Days = append(c.Days, chartDay{Day: day, Label: day.Format(time.DateOnly), Paid: t.Paid, Refunds: t.Refunds,
			Refunded: t.Refunded, Volume: t.Net()})
		c.Max = max(c.Max, t.Net())
		c.Total += t.Net()
	}
	c.HasAnyVolume = c.Max > 0
	for i := range c.Days {
		d := &c.Days[i]
		d.X, d.W = chartGap+i*(chartBarWidth+chartGap), chartBarWidth
		if c.Max > 0 && d.Volume > 0 {
			d.H = int(int64(d.Volume) * chartPlot / int64(c.Max))
			if d.Volume > 0 && d.H == 0 {
				d.H = 1 // a day with money is never invisible
			}
		}
		d.Y = c.Base - d.H
		d.LabelX, d.TextY = d.X+chartBarWidth/2, c.Base+16
		d.ShowLabel, d.AxisLabel, d.Anchor = (n-1-i)%7 == 0, d.Day.Format("Jan 2"), "middle"
		if i == n-1 {
			d.LabelX, d.Anchor = d.X+chartBarWidth, "end"
		}
	}
	c.First, c.Last = c.Days[0].Label, c.Days[n-1].Label
	for i := n - 1; i >= 0; i-- {
		if d := c.Days[i]; d.Paid > 0 || d.Refunds > 0 {
			c.Rows = append(c.Rows, d)
		}
	}
	return c
}
