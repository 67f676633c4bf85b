package store

import (
	"context"
	"fmt"
	"sync"
)

// maxGroup bounds how many write transactions share one SQLite commit.
const maxGroup = 64

// groupCommit runs SQLite write transactions on the single writer connection and
// commits those that queue up meanwhile together. Each transaction still succeeds or
// fails alone: it runs inside its own SAVEPOINT when it shares the commit, and a
// failure rolls back to it (a job alone rolls back the transaction). A
// commit costs WAL writes and shared-memory locking whatever its size, so under load
// one commit for many transactions multiplies write throughput; with no load a
// transaction commits at once, alone.
type groupCommit struct {
	p         *pool
	jobs      chan *writeJob
	quit      chan struct{}
	done      chan struct{}
	stopOnce  sync.Once
	gathering // transactions announced before they are queued (groupgather.go)
}

// writeJob is one caller's transaction, waiting for its outcome on result.
type writeJob struct {
	ctx    context.Context
	fn     func(txq) error
	result chan error
	did    txDid         // see txq.did
	notes  *txNotes      // what fn noted for the Observer; nil: none kept
	told   *announcement // the announcement of this job; nil: none
}

func newGroupCommit(p *pool) *groupCommit {
	g := &groupCommit{p: p, jobs: make(chan *writeJob), quit: make(chan struct{}), done: make(chan struct{}),
		gathering: newGathering()}
	go g.loop()
	return g
}

// do runs fn as one transaction and returns its outcome once it is committed (or
// rolled back), and what fn did (see txq.did). Once fn is queued do
// waits for the outcome even if ctx ends, so a caller never reports a failure for
// a change that was committed.
// A job that was announced (told, from announce) is no longer coming once the
// writer has it, or once do gives up.
func (g *groupCommit) do(ctx context.Context, notes *txNotes, told *announcement, fn func(txq) error) (done, error) {
	j := &writeJob{ctx: ctx, fn: fn, result: make(chan error, 1), notes: notes, told: told}
	select {
	case g.jobs <- j:
	case <-ctx.Done():
		told.withdraw()
		return done{}, ctx.Err()
	case <-g.quit:
		told.withdraw()
		return done{}, fmt.Errorf("store: closed")
	}
	err := <-j.result
	return j.did.load(), err
}

// stop ends the loop after the group in progress.
func (g *groupCommit) stop() {
	g.stopOnce.Do(func() { close(g.quit) })
	<-g.done
}

func (g *groupCommit) loop() {
	defer close(g.done)
	for {
		select {
		case j := <-g.jobs:
			g.commit(g.gather(j))
		case <-g.quit:
			return
		}
	}
}

// commit runs a group of jobs in one transaction, each in its own savepoint when
// there are several.
func (g *groupCommit) commit(group []*writeJob) {
	ctx := context.Background() // the group outlives any one caller's context
	results := make([]error, len(group))
	tx, err := g.p.BeginTx(ctx, nil)
	if err != nil {
		g.groups.Add(1)
		for _, j := range group {
			j.result <- fmt.Errorf("store: begin: %w", err)
		}
		return
	}
	// Jobs' statements run detached from their callers' cancellation: an interrupted
	// SQLite write rolls back the whole transaction, not just one job's savepoint,
	// and would fail every other job of the group.
	q := txq{Tx: tx, p: g.p, detached: true}
	broken := error(nil) // a failed savepoint statement, or a lone job failed: roll back
	// A job alone needs no savepoint: its failure rolls back the transaction, which
	// holds nothing else. Two statements fewer for every write when there is no load.
	solo := len(group) == 1
	for i, j := range group {
		if broken != nil {
			results[i] = broken
			continue
		}
		if err := j.ctx.Err(); err != nil {
			results[i] = err
			continue
		}
		if !solo {
			if _, err := q.ExecContext(ctx, "SAVEPOINT job"); err != nil {
				broken = fmt.Errorf("store: savepoint: %w", err)
				results[i] = broken
				continue
			}
		}
		jq := q
		jq.did = &j.did // the savepoint statements above and below are not the job's
		jq.notes = j.notes
		results[i] = runJob(j.fn, jq)
		if results[i] != nil {
			g.p.endpoints.reset() // what the job read or wrote is undone
			if solo {
				broken = results[i] // roll the transaction back
				continue
			}
			if _, err := q.ExecContext(ctx, "ROLLBACK TO job"); err != nil {
				broken = fmt.Errorf("store: rollback to savepoint: %w", err)
			}
		}
		if solo {
			continue
		}
		if _, err := q.ExecContext(ctx, "RELEASE job"); err != nil && broken == nil {
			broken = fmt.Errorf("store: release savepoint: %w", err)
			results[i] = broken
		}
	}
	if broken != nil {
		g.p.endpoints.reset()
		_ = tx.Rollback()
		for i := range results {
			if results[i] == nil {
				results[i] = broken
			}
		}
	} else if err := tx.Commit(); err != nil {
		g.p.endpoints.reset()
		for i := range results {
			if results[i] == nil {
				results[i] = fmt.Errorf("store: commit: %w", err)
			}
		}
	}
	// Counted before any job hears its outcome, so whoever holds an outcome
	// also sees its group in the count (the checkpointer, tests).
	g.groups.Add(1)
	for i, j := range group {
		j.result <- results[i]
	}
}

// runJob runs one job's function, turning a panic into an error so one bad job
// cannot stop the writer.
func runJob(fn func(txq) error, q txq) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("store: panic in transaction: %v", r)
		}
	}()
	return fn(q)
}
