package store

import (
	"context"
	"database/sql"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"
)

// checkpointEvery is how often the checkpointer copies the WAL's committed pages
// into the SQLite database file, when anything was committed since its last run
// or that run left frames behind (a reader's snapshot still needed them):
// under a create load the frames of half a second, each page copied once however
// often the WAL holds it. The log restarts from its beginning only when a copy
// ends between two of the writer's commits, so it can still grow to the writer's
// own threshold (sqliteCheckpoint), whose checkpoint then has little left to copy.
const checkpointEvery = 500 * time.Millisecond

// checkpointer checkpoints SQLite's WAL on a connection of its own, beside the
// writer instead of inside it. SQLite's automatic checkpoint runs in the commit
// that crosses its threshold: the writer, which every write waits for, then
// copies pages and waits for two fsyncs, and every create queued meanwhile waits
// too (the slowest percent of creates under load). A PASSIVE checkpoint takes no
// lock a writer needs, so commits go on while it runs; the writer's own automatic
// checkpoint stays as a backstop at a higher threshold (sqliteCheckpoint).
type checkpointer struct {
	conn    *sql.DB
	commits func() int64 // a count that moves whenever something was committed
	every   time.Duration
	log     *slog.Logger
	quit    chan struct{}
	done    chan struct{}
	stopped sync.Once
	// runs counts checkpoints; frames and copied are the last one's WAL size and
	// frames copied, in pages. Tests read them.
	runs, frames, copied atomic.Int64
}

// startCheckpointer opens the connection of the SQLite database at path and
// checkpoints every interval while commits moves or frames are left behind.
func startCheckpointer(path string, every time.Duration, commits func() int64, log *slog.Logger) (*checkpointer, error) {
	conn := openSQLiteDB(path + "?_pragma=busy_timeout(5000)")
	conn.SetMaxOpenConns(1)
	conn.SetMaxIdleConns(1)
	conn.SetConnMaxIdleTime(0)
	c := &checkpointer{conn: conn, commits: commits, every: every, log: log, quit: make(chan struct{}), done: make(chan struct{})}
	go c.loop()
	return c, nil
}

func (c *checkpointer) loop() {
	defer close(c.done)
	t := time.NewTicker(c.every)
	defer t.Stop()
	last := c.commits()
	for {
		select {
		case <-c.quit:
			return
		case <-t.C:
		}
		if n := c.commits(); n != last || c.behind() {
			last = n
			c.checkpoint()
		}
	}
}

// behind reports whether the last checkpoint left frames uncopied because a
// reader's snapshot still needed them. The next tick then tries again, so the
// frames of the last commits before a quiet spell are copied once the reader ends
// and not only after the next commit; when every frame is copied the loop rests.
func (c *checkpointer) behind() bool { return c.copied.Load() < c.frames.Load() }

// checkpoint runs one PASSIVE checkpoint: as many committed frames as no reader
// still needs are copied; the rest wait for the next run.
func (c *checkpointer) checkpoint() {
	var busy, logFrames, copied int
	err := c.conn.QueryRowContext(context.Background(), "PRAGMA wal_checkpoint(PASSIVE)").Scan(&busy, &logFrames, &copied)
	if err != nil {
		c.log.LogAttrs(context.Background(), slog.LevelWarn, "sqlite checkpoint failed", slog.String("error", err.Error()))
		return
	}
	c.frames.Store(int64(logFrames))
	c.copied.Store(int64(copied))
	c.runs.Add(1)
}

// stop ends the loop and closes the connection; calls after the first do nothing.
func (c *checkpointer) stop() error {
	var err error
	c.stopped.Do(func() {
		close(c.quit)
		<-c.done
		err = c.conn.Close()
	})
	return err
}
