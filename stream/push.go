package stream

import (
	"sync"

	"github.com/kassapay/kassa"
)

// minPerPusher is how many sinks a batch must reach per pusher goroutine before
// the push is shared out: below it, starting a goroutine costs more than it saves.
const minPerPusher = 128

// sinkSet holds the sinks of one key in a slice, so that a batch is pushed by
// walking it (shared out between pushers by index) without copying it.
type sinkSet struct {
	list []*Sub
}

// pushJob is one key's part of a fan-out: its events and its sinks.
type pushJob struct {
	set   *sinkSet
	batch *kassa.EventBatch
}

// pushJobs gathers a fan-out's events by key.
type pushJobs struct {
	list  []pushJob
	index map[subKey]int
}

func (j *pushJobs) add(key subKey, set *sinkSet, e *kassa.Event) {
	if j.index == nil {
		j.index = map[subKey]int{}
	}
	i, ok := j.index[key]
	if !ok {
		i = len(j.list)
		j.index[key] = i
		j.list = append(j.list, pushJob{set: set, batch: &kassa.EventBatch{}})
	}
	j.list[i].batch.Events = append(j.list[i].batch.Events, e)
}

// SubscribeSink implements kassa.PushStream: Subscribe for a sink, with the same
// start (the hub's position when it returns). Once Run has returned, the sink is
// ended at once with kassa.ErrStreamStopped.
func (h *Hub) SubscribeSink(merchantID int64, env kassa.Environment, scope kassa.Scope, sink kassa.EventSink) func() {
	<-h.ready
	s := &Sub{hub: h, key: subKey{merchantID, env, scope}, sink: sink}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.catchUpLocked()
	s.start = h.pos
	if h.stopped {
		s.err, s.done = kassa.ErrStreamStopped, true
		sink.End(kassa.ErrStreamStopped)
		return s.Close
	}
	set := h.sinks[s.key]
	if set == nil {
		set = &sinkSet{}
		h.sinks[s.key] = set
	}
	s.idx = len(set.list)
	set.list = append(set.list, s)
	return s.Close
}

// push hands each job's batch to its sinks, shared out between up to
// Options.Pushers goroutines, and drops the sinks that refused it; h.mu is held,
// so no sink comes or goes meanwhile.
func (h *Hub) push(jobs []pushJob) {
	total := 0
	for _, j := range jobs {
		total += len(j.set.list)
	}
	pushers := min(h.opts.Pushers, (total+minPerPusher-1)/minPerPusher)
	var slow [][]*Sub
	if pushers <= 1 {
		slow = [][]*Sub{h.pushRange(jobs, 0, total)}
	} else {
		slow = make([][]*Sub, pushers)
		var wg sync.WaitGroup
		for p := range pushers {
			wg.Go(func() { slow[p] = h.pushRange(jobs, total*p/pushers, total*(p+1)/pushers) })
		}
		wg.Wait()
	}
	for _, ss := range slow {
		for _, s := range ss {
			h.remove(s)
			s.err, s.done = kassa.ErrSlowConsumer, true
			s.sink.End(kassa.ErrSlowConsumer)
		}
	}
}

// pushRange pushes to the sinks lo to hi of the jobs' lists taken end to end and
// returns those that refused their batch.
func (h *Hub) pushRange(jobs []pushJob, lo, hi int) (slow []*Sub) {
	for _, j := range jobs {
		n := len(j.set.list)
		if lo < n {
			for _, s := range j.set.list[lo:min(hi, n)] {
				if !s.sink.Push(j.batch, h.opts.Buffer) {
					slow = append(slow, s)
				}
			}
		}
		if hi <= n {
			return slow
		}
		lo, hi = max(lo-n, 0), hi-n
	}
	return slow
}

var _ kassa.PushStream = (*Hub)(nil)
