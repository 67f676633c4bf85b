package store

import (
	"sync/atomic"
	"time"
)

// maxGather bounds how long SQLite's writer holds a group open for transactions
// that were announced but not yet queued.
const maxGather = time.Millisecond

// gathering lets callers announce a write transaction they are still preparing
// (an invoice create renders, deflates and seals its response first), so the
// writer holds the group it is gathering open for it instead of committing
// without it. A commit costs about as much for one transaction as for several
// (the WAL frames of the pages they share, the locks), so under load a short wait
// saves more CPU than it costs; a transaction alone never waits, as nothing else
// is coming.
type gathering struct {
	coming    atomic.Int32  // announced, neither received by the writer nor withdrawn
	wake      chan struct{} // a withdrawal: the writer checks coming again
	gatherFor time.Duration // maxGather; tests lengthen it
	// groups counts the groups run, committed or rolled back; waiting is 1 while
	// the writer holds a group open for an announced transaction. The
	// checkpointer and tests observe them.
	groups  atomic.Int64
	waiting atomic.Int32
}

func newGathering() gathering {
	return gathering{wake: make(chan struct{}, 1), gatherFor: maxGather}
}

// announcement is one announced transaction; its methods work on a nil one (no
// announcement: PostgreSQL, or a write nobody announced).
type announcement struct {
	g    *gathering
	over atomic.Bool // received by the writer, or withdrawn
}

// announce tells the writer a transaction will be queued soon. The caller passes
// the announcement to the job (groupCommit.do), or withdraws it if it queues
// nothing after all; withdrawing after that does nothing.
func (g *gathering) announce() *announcement {
	g.coming.Add(1)
	return &announcement{g: g}
}

// withdraw says the announced transaction will not be queued.
func (a *announcement) withdraw() {
	if a.end() {
		select {
		case a.g.wake <- struct{}{}:
		default: // a wake-up is already pending
		}
	}
}

// end takes the announcement off the count once; it reports whether this call did.
func (a *announcement) end() bool {
	if a == nil || !a.over.CompareAndSwap(false, true) {
		return false
	}
	a.g.coming.Add(-1)
	return true
}

// gather returns the group that starts with first: the jobs queued meanwhile,
// then those announced, for as long as some are coming and at most gatherFor.
func (g *groupCommit) gather(first *writeJob) []*writeJob {
	first.told.end()
	group := []*writeJob{first}
	var timer *time.Timer
	defer func() {
		if timer != nil {
			timer.Stop()
		}
	}()
	for len(group) < maxGroup {
		select {
		case j := <-g.jobs:
			j.told.end()
			group = append(group, j)
			continue
		default:
		}
		if g.coming.Load() <= 0 {
			return group
		}
		if timer == nil {
			timer = time.NewTimer(g.gatherFor)
		}
		j, ok := g.await(timer.C)
		if !ok {
			return group
		}
		if j != nil {
			group = append(group, j)
		}
	}
	return group
}

// await waits while a transaction is announced, for a job (returned) or a
// withdrawal (nil). It returns false once the group's time is up or the writer
// stops.
func (g *groupCommit) await(timeout <-chan time.Time) (*writeJob, bool) {
	g.waiting.Store(1)
	defer g.waiting.Store(0)
	select {
	case j := <-g.jobs:
		j.told.end()
		return j, true
	case <-g.wake:
		return nil, true
	case <-timeout:
		return nil, false
	case <-g.quit:
		return nil, false
	}
}
