package main

import (
	"fmt"
	"maps"
	"slices"
	"time"
)

// pagesReport prints what a pages run saw: the paid views expected and received,
// and two latencies per paid view: from the commit (the view's paid_at, stamped in
// the payment's transaction) and from just before the payment's POST. Its last
// line holds the first one's p50 and p99.
func pagesReport(targets []*pageInvoice, paid, pages int, epoch time.Time) error {
	var (
		fromCommit, fromPost, post []time.Duration
		missing, noPaidAt, other   int
		ends                       = map[string]int{}
	)
	for _, p := range targets {
		other += p.other
		if p.t1 == 0 {
			continue // its payment failed
		}
		post = append(post, p.t1-p.t0)
		if p.paidView == 0 {
			missing++
			if p.streamErr != "" {
				ends[p.streamErr]++
			}
			continue
		}
		fromPost = append(fromPost, p.paidView-p.t0)
		if p.paidAt.IsZero() {
			noPaidAt++
			continue
		}
		// The view's arrival in wall-clock time (the epoch's, plus the reader's
		// monotonic offset), against the server's stamp on the same clock.
		fromCommit = append(fromCommit, epoch.Add(p.paidView).Sub(p.paidAt))
	}
	fmt.Printf("pages: paid views expected=%d received=%d missing=%d without paid_at=%d other views=%d\n",
		paid, len(fromPost), missing, noPaidAt, other)
	for _, reason := range slices.Sorted(maps.Keys(ends)) {
		fmt.Printf("pages: stream ended without its paid view x%d: %s\n", ends[reason], reason)
	}
	fmt.Printf("pages: payment POST p50=%s p99=%s\n", pctDur(post, 0.50), pctDur(post, 0.99))
	if len(fromPost) > 0 {
		slices.Sort(fromPost)
		fmt.Printf("pages: before the POST -> page p50=%s p90=%s p99=%s max=%s\n", pctSorted(fromPost, 0.50),
			pctSorted(fromPost, 0.90), pctSorted(fromPost, 0.99), fromPost[len(fromPost)-1].Round(time.Microsecond))
	}
	if len(fromCommit) == 0 {
		return fmt.Errorf("pages: no paid view with its paid_at arrived")
	}
	slices.Sort(fromCommit)
	fmt.Printf("pages: commit -> page p50=%s p90=%s p99=%s max=%s\n", pctSorted(fromCommit, 0.50),
		pctSorted(fromCommit, 0.90), pctSorted(fromCommit, 0.99), fromCommit[len(fromCommit)-1].Round(time.Microsecond))
	if missing > 0 || noPaidAt > 0 {
		fmt.Printf("pages: INCOMPLETE: %d of %d paid views received\n", len(fromCommit), paid)
	}
	fmt.Printf("commit to page event: p50 %.1f ms, p99 %.1f ms (%d pages, %d payments)\n",
		ms(pctSorted(fromCommit, 0.50)), ms(pctSorted(fromCommit, 0.99)), pages, len(fromCommit))
	return nil
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
