package api

import (
	"net/http"
	"time"
)

// SetWSTimings shortens the stream ping and key check intervals for a test; the
// returned func restores them.
func SetWSTimings(ping, keyCheck time.Duration) (restore func()) {
	oldPing, oldCheck := wsPingInterval.get(), wsKeyCheckInterval.get()
	wsPingInterval.set(ping)
	wsKeyCheckInterval.set(keyCheck)
	return func() {
		wsPingInterval.set(oldPing)
		wsKeyCheckInterval.set(oldCheck)
	}
}

// SetWSBeforeLiveWrite installs a hook run before each live event a stream writes
// (nil removes it); the returned func removes it.
func SetWSBeforeLiveWrite(f func(r *http.Request)) (restore func()) {
	if f == nil {
		wsBeforeLiveWrite.Store(nil)
	} else {
		wsBeforeLiveWrite.Store(&f)
	}
	return func() { wsBeforeLiveWrite.Store(nil) }
}

func (d *duration) set(v time.Duration) { d.v.Store(int64(v)) }
