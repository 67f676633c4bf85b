package chain

import (
	"sort"
	"time"
)

// Progress is what a watcher saw at its last completed step on this instance:
// the node's head and the last block read, for the metrics' head lag.
type Progress struct {
	Network   string
	Head      uint64    // the node's head block then
	Processed uint64    // the last block the watcher had read
	At        time.Time // when (the real clock, not the watcher's Now)
	// Current reports that the step is recent, within the watch lease's term: this
	// instance is the network's watcher now. A step older than that was made
	// before the lease went to another instance, or the watcher is failing.
	Current bool
}

// noteProgress records a completed step.
func (w *Watcher) noteProgress(head, processed uint64) {
	w.progress.Store(&Progress{Network: w.Network.Name, Head: head, Processed: processed, At: time.Now()})
}

// Progress lists, by network name, the last completed step of each watcher that
// stepped on this instance; networks it never stepped (another instance holds their
// lease) are left out.
func (ws *Watchers) Progress() []Progress {
	ws.mu.RLock()
	defer ws.mu.RUnlock()
	var out []Progress
	for _, e := range ws.entries {
		p := e.w.progress.Load()
		if p == nil {
			continue
		}
		c := *p
		c.Current = time.Since(c.At) <= leaseTTL(e.interval)
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Network < out[j].Network })
	return out
}

// leaseTTL is the term of a watch lease for a network polled every interval: ten
// rounds, at least 30 s.
func leaseTTL(interval time.Duration) time.Duration { return max(10*interval, 30*time.Second) }
