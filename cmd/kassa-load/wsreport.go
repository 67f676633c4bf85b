package main

import (
	"fmt"
	"maps"
	"slices"
	"time"
)

// wsReport merges the clients' records with the creates' t0s and prints the
// figures: frames expected and received, latency from change to frame, and why
// streams ended early.
func wsReport(cs []*wsClient, cr *createResult, clients, connected int) error {
	fmt.Printf("ws: invoices created=%d failed=%d in %.1fs (%.1f/s); POST p50=%s p99=%s\n",
		cr.ok(), sum(cr.failed), cr.elapsed.Seconds(), float64(cr.ok())/cr.elapsed.Seconds(),
		pctDur(cr.post, 0.50), pctDur(cr.post, 0.99))
	for _, reason := range slices.Sorted(maps.Keys(cr.failed)) {
		fmt.Printf("ws: create failed x%d: %s\n", cr.failed[reason], reason)
	}

	var (
		lat        = make([]time.Duration, 0, connected*cr.ok())
		received   int
		unknown    int // frames for invoices this run did not create (or whose POST failed)
		dups       int
		other, bad int
		ends       = map[string]int{}
		firstFrame = map[string]time.Duration{} // per invoice: earliest and latest arrival
		lastFrame  = map[string]time.Duration{}
		seen       = map[string]bool{}
	)
	for _, c := range cs {
		if c == nil {
			continue
		}
		other += c.other
		bad += c.bad
		if c.end != "" {
			ends[c.end]++
		}
		clear(seen)
		for _, r := range c.recs {
			t0, ok := cr.t0[r.id]
			if !ok {
				unknown++
				continue
			}
			if seen[r.id] {
				dups++
				continue
			}
			seen[r.id] = true
			received++
			d := r.at - t0
			lat = append(lat, d)
			if f, ok := firstFrame[r.id]; !ok || d < f {
				firstFrame[r.id] = d
			}
			lastFrame[r.id] = max(lastFrame[r.id], d)
		}
	}
	want := connected * cr.ok()
	fmt.Printf("ws: frames expected=%d (%d clients x %d events) received=%d missing=%d duplicate=%d unknown=%d other_types=%d unparsed=%d\n",
		want, connected, cr.ok(), received, want-received, dups, unknown, other, bad)
	if len(lat) > 0 {
		slices.Sort(lat)
		fmt.Printf("ws: latency change->frame (t0 = before the POST) p50=%s p90=%s p99=%s max=%s\n",
			pctSorted(lat, 0.50), pctSorted(lat, 0.90), pctSorted(lat, 0.99), lat[len(lat)-1].Round(time.Microsecond))
		// Fan-out throughput: frames over the span from the first POST to the last frame.
		var lastAt time.Duration
		firstT0 := time.Duration(1<<63 - 1)
		for id, d := range lastFrame {
			firstT0 = min(firstT0, cr.t0[id])
			lastAt = max(lastAt, cr.t0[id]+d)
		}
		if span := lastAt - firstT0; span > 0 {
			fmt.Printf("ws: %d frames from the first POST to the last frame in %.1fs: %.0f frames/s\n",
				received, span.Seconds(), float64(received)/span.Seconds())
		}
		firsts := slices.Collect(maps.Values(firstFrame))
		lasts := slices.Collect(maps.Values(lastFrame))
		fmt.Printf("ws: per event: first client p50=%s p99=%s; last client p50=%s p99=%s\n",
			pctDur(firsts, 0.50), pctDur(firsts, 0.99), pctDur(lasts, 0.50), pctDur(lasts, 0.99))
	}
	if len(ends) == 0 {
		fmt.Printf("ws: streams closed early: none\n")
	}
	for _, reason := range slices.Sorted(maps.Keys(ends)) {
		fmt.Printf("ws: streams closed early x%d: %s\n", ends[reason], reason)
	}
	if clients != connected || received != want {
		fmt.Printf("ws: INCOMPLETE: %d of %d clients connected, %d of %d frames received\n",
			connected, clients, received, want)
	}
	return nil
}

func sum(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}

// pctDur is the p-th percentile of ds (sorted in place).
func pctDur(ds []time.Duration, p float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	slices.Sort(ds)
	return pctSorted(ds, p)
}

func pctSorted(ds []time.Duration, p float64) time.Duration {
	return ds[int(p*float64(len(ds)-1))].Round(time.Microsecond)
}
